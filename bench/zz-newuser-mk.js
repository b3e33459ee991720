const CRC32 = require('crc-32');
const v4 = (body) => '#v4:' + body + '&c=' + (CRC32.str('v4:' + body) >>> 0).toString(16).padStart(8, '0');
module.exports = { v4 };
if (require.main === module) console.log(v4(process.argv[2]));

// One list item naming a field and why the engine says so: the import's notes (import-panel.js) and
// the fields an export does not carry (trainer-export.js) are shown by the same rule.
import { language } from './i18n.js';
import { el } from './dom.js';

/**
 * In English the field, what follows it (an imported value, " = 2048") and the engine's reason; on
 * the Chinese page the reason in Chinese where the page words it (reasonZh, from the config-files
 * chunk), else the field and what follows it alone, the English reason as the tooltip.
 * @param {string} field  the key or document path, shown as code
 * @param {string} after  text right after the field, or ''
 * @param {string} reason  the engine's English reason
 * @param {(reason: string) => string | null} reasonZh
 */
export function reasonItem(field, after, reason, reasonZh) {
  if (language() !== 'zh') return el('li', {}, [el('code', { text: field }), document.createTextNode(after + ': ' + reason)]);
  const zh = reasonZh(reason);
  return el('li', zh === null ? { title: reason } : {}, [el('code', { text: field }), document.createTextNode(after + (zh === null ? '' : '：' + zh))]);
}

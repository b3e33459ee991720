// The accuracy chunk (chunk-accuracy.js, loaded when the Accuracy section opens): the accuracy
// program's table for the engine as built (scripts/build-web.mjs runs it).
import data from 'trainmem:accuracy-data';

document.dispatchEvent(new CustomEvent('trainmem:chunk', { detail: { name: 'accuracy', exports: data } }));

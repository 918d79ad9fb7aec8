// JS host of one arena bot (`node host.js BOT.js LIMIT ANSWER_FD`): loads a bot in the
// seed's object format, freezes it (as the original controller did: "Object.freeze on bots
// introduce some confusion behaviors (you cannot assign its properties)"; nested objects
// such as a Set stay mutable), and answers one command per line on stdin, on the pipe
// ANSWER_FD (never stdout: what the bot prints with console.log goes wherever the
// controller sent stdout, apart from the answers). The protocol is in bot/arena/process.py:
//   n              a new match                   -> nothing
//   p C1 C2        draftPick([C1, C2])          -> the returned index (a line)
//   r C            draftReceive(C)              -> nothing (errors are reported later)
//   m BASE C1 ..   mainPlay([C1, ..], BASE)     -> the returned index
//   o C            mainPostprocess(C)           -> nothing
//   s              sync                          -> "ok"
// An answer line is an integer, "X <json>" for a non-integer return value, or
// "E timeout|error\t<sentence>" when this call or an earlier notification threw or ran
// longer than the limit (seconds, argv[3]).
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const file = path.resolve(process.argv[2]);
const limit = Number(process.argv[3] || '1');
const limitMs = limit * 1000;
const answerFd = Number(process.argv[4]);

function load(src) {
  const module = { exports: {} };
  let err = null;
  try {
    // CommonJS file: module.exports = {...}
    new Function('module', 'exports', 'require', '__filename', '__dirname', src)(
      module, module.exports, require, file, path.dirname(file));
    const e = module.exports;
    if (e && typeof e.draftPick === 'function') return e;
    if (e && e.default && typeof e.default.draftPick === 'function') return e.default;
  } catch (ex) { err = ex; }
  // A bare object literal (the seed's format), possibly with a trailing comma or semicolon.
  const body = src.trim().replace(/[,;]\s*$/, '');
  try {
    const obj = new Function('require', 'return (' + body + '\n);')(require);
    if (obj && typeof obj.draftPick === 'function') return obj;
  } catch (ex) { if (!err) err = ex; }
  throw new Error('no bot object (' + (err ? err.message : 'needs draftPick, draftReceive, mainPlay, mainPostprocess') + ')');
}

function send(line) { fs.writeSync(answerFd, line + '\n'); }

let bot;
try {
  bot = load(fs.readFileSync(file, 'utf8'));
  for (const m of ['draftPick', 'draftReceive', 'mainPlay', 'mainPostprocess']) {
    if (typeof bot[m] !== 'function') throw new Error('the bot has no ' + m + ' method');
  }
  Object.freeze(bot);
} catch (ex) {
  send('E load\t' + String(ex && ex.message || ex).replace(/\s+/g, ' '));
  process.exit(0);
}
// Notification methods with an empty body can do nothing: the controller need not send them.
const skip = [['draftReceive', 'draft_receive'], ['mainPostprocess', 'main_postprocess']]
  .filter(([m]) => /^[^{]*\{\s*\}$/.test(Function.prototype.toString.call(bot[m])))
  .map(([, py]) => py);
send('ok ' + JSON.stringify({
  name: String(bot.name === undefined ? path.basename(file, '.js') : bot.name), skip }));

let failed = null;  // the first failure of a notification, reported with the next answer
function call(where, fn) {
  const t = process.hrtime.bigint();
  let value;
  try {
    value = fn();
  } catch (ex) {
    failed = failed || ('error\tthrew ' + String(ex && ex.stack ? ex.toString() : ex).replace(/\s+/g, ' ') + ' in ' + where);
    return undefined;
  }
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (ms > limitMs && !failed) {
    failed = 'timeout\texceeded the time limit of ' + limit + ' s in ' + where + ': took ' + (ms / 1000).toFixed(3) + ' s';
  }
  return value;
}
function answer(value) {
  if (failed) { send('E ' + failed); failed = null; return; }
  if (Number.isInteger(value)) send(String(value));
  else send('X ' + (value === undefined ? 'undefined' : JSON.stringify(value)));
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const parts = line.split(' ');
  switch (parts[0]) {
    case 'n': break;
    case 'p': { const v = failed ? undefined : call('draftPick', () => bot.draftPick([parts[1], parts[2]])); answer(v); break; }
    case 'r': if (!failed) call('draftReceive', () => bot.draftReceive(parts[1])); break;
    case 'm': { const v = failed ? undefined : call('mainPlay', () => bot.mainPlay(parts.slice(2), parts[1])); answer(v); break; }
    case 'o': if (!failed) call('mainPostprocess', () => bot.mainPostprocess(parts[1])); break;
    case 's': if (failed) answer(undefined); else send('ok'); break;
    default: send('E error\tunknown command ' + parts[0]);
  }
});
rl.on('close', () => process.exit(0));

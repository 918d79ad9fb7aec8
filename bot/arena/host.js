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
// longer than the limit (seconds, argv[3]); a throw's sentence names the line and column in
// the bot's file, and a tab and the bot's frames of the stack (a JSON string) follow it.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const vm = require('vm');

const file = path.resolve(process.argv[2]);
const limit = Number(process.argv[3] || '1');
const limitMs = limit * 1000;
const answerFd = Number(process.argv[4]);

// A maker of fresh bot objects: each call evaluates the file's object (or module) anew, so
// every match gets its own bot (nested Sets and objects included). Both forms are compiled
// with the file's name and its own line numbers, so that an error names the line and column
// in the bot's file.
const PARAMS = ['module', 'exports', 'require', '__filename', '__dirname'];
function load(src) {
  const literalForm = src.trimStart()[0] === '{';
  let err = null;
  try {
    // CommonJS file: module.exports = {...}
    const body = vm.compileFunction(src, PARAMS, { filename: file });
    const make = () => {
      const module = { exports: {} };
      body(module, module.exports, require, file, path.dirname(file));
      const e = module.exports;
      return e && typeof e.draftPick === 'function' ? e : e && e.default;
    };
    const first = make();
    if (first && typeof first.draftPick === 'function') return { first, make };
  } catch (ex) { err = ex; }
  // A bare object literal (the seed's format), possibly with a trailing comma or semicolon:
  // `return (` on a line of its own before the file's first line (lineOffset -1).
  const text = src.trimEnd().replace(/[,;]$/, '');
  try {
    const literal = vm.compileFunction('return (\n' + text + '\n);', ['require'],
      { filename: file, lineOffset: -1 });
    const make = () => literal(require);
    const first = make();
    if (first && typeof first.draftPick === 'function') return { first, make };
  } catch (ex) { if (!err || literalForm) err = ex; }
  if (!err) throw new Error('no bot object (needs draftPick, draftReceive, mainPlay, mainPostprocess)');
  throw err;
}

// Where in the bot's file an error happened: " (bot.js, line L, column C)", or "". A syntax
// error's stack starts with "FILE:LINE", the line's text and a caret under the column; a
// thrown error's stack has frames "(FILE:LINE:COLUMN)".
function location(ex) {
  const stack = String(ex && ex.stack || '');
  const name = path.basename(file);
  if (stack.startsWith(file + ':')) {
    const [head, , caret] = stack.split('\n');
    const line = head.slice(file.length + 1);
    const column = caret && caret.indexOf('^') >= 0 ? ', column ' + (caret.indexOf('^') + 1) : '';
    return ' (' + name + ', line ' + line + column + ')';
  }
  const at = stack.indexOf(file + ':');
  if (at < 0) return '';
  const m = /^:(\d+):(\d+)/.exec(stack.slice(at + file.length));
  return m ? ' (' + name + ', line ' + m[1] + ', column ' + m[2] + ')' : '';
}
// The error's stack, the bot's frames only (the host's are left out), for --check.
function trace(ex) {
  const lines = String(ex && ex.stack || '').split('\n');
  const first = lines.findIndex((l) => /^\s+at /.test(l));
  if (first < 0) return '';
  const own = lines.slice(first).filter((l) => l.includes(file + ':'));
  return own.length ? [...lines.slice(0, first), ...own].join('\n') : '';
}
function flat(text) { return String(text).replace(/\x1f/g, ' ').replace(/\s+/g, ' '); }
// The answer of a call that threw: `error\t<sentence>\t<the bot's frames as a JSON string>`.
function threw(ex, where) {
  const what = flat(ex && ex.stack ? ex.toString() : ex).slice(0, 160);
  const t = trace(ex);
  return 'error\tthrew ' + what + ' ' + where + location(ex) + (t ? '\t' + JSON.stringify(t) : '');
}

function send(line) { fs.writeSync(answerFd, line + '\n'); }

let bot, make;
try {
  ({ first: bot, make } = load(fs.readFileSync(file, 'utf8')));
  for (const m of ['draftPick', 'draftReceive', 'mainPlay', 'mainPostprocess']) {
    if (typeof bot[m] !== 'function') throw new Error('the bot has no ' + m + ' method');
  }
  Object.freeze(bot);
} catch (ex) {
  const what = ex instanceof SyntaxError ? 'the file does not parse: ' + ex.toString()
    : ex && ex.stack && location(ex) ? 'it threw ' + ex.toString() : String(ex && ex.message || ex);
  send('E load\t' + flat(what).slice(0, 200) + location(ex));
  process.exit(0);
}
// Notification methods with an empty body can do nothing: the controller need not send them.
const skip = [['draftReceive', 'draft_receive'], ['mainPostprocess', 'main_postprocess']]
  .filter(([m]) => /^[^{]*\{\s*\}$/.test(Function.prototype.toString.call(bot[m])))
  .map(([, py]) => py);
send('ok ' + JSON.stringify({
  name: String(bot.name === undefined ? path.basename(file, '.js') : bot.name), skip }));

// One call at a time: the bot's object (a fresh one for each match after the first) and the
// first failure of a notification, reported with the next answer.
const slot = { bot, failed: null, used: false };
function call(where, fn) {
  const t = process.hrtime.bigint();
  let value;
  try {
    value = fn();
  } catch (ex) {
    slot.failed = slot.failed || threw(ex, 'in ' + where);
    return undefined;
  }
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (ms > limitMs && !slot.failed) {
    slot.failed = 'timeout\texceeded the time limit of ' + limit + ' s in ' + where + ': took ' + (ms / 1000).toFixed(3) + ' s';
  }
  return value;
}
function answer(value) {
  if (slot.failed) { send('E ' + slot.failed); slot.failed = null; }
  else if (Number.isInteger(value)) send(String(value));
  else send('X ' + (value === undefined ? 'undefined' : JSON.stringify(value)));
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (line[0] === '@') { lockstep(line); return; }
  const parts = line.split(' ');
  const b = slot.bot;
  switch (parts[0]) {
    case 'n':  // a new match: a fresh object (the first one serves the first match)
      if (slot.used) {
        try { slot.bot = Object.freeze(make()); } catch (ex) {
          slot.failed = threw(ex, 'when the bot was made');
        }
      }
      slot.used = true;
      break;
    case 'p': { const v = slot.failed ? undefined : call('draftPick', () => b.draftPick([parts[1], parts[2]])); answer(v); break; }
    case 'r': if (!slot.failed) call('draftReceive', () => b.draftReceive(parts[1])); break;
    case 'm': { const v = slot.failed ? undefined : call('mainPlay', () => b.mainPlay(parts.slice(2), parts[1])); answer(v); break; }
    case 'o': if (!slot.failed) call('mainPostprocess', () => b.mainPostprocess(parts[1])); break;
    case 's': if (slot.failed) answer(undefined); else send('ok'); break;
    default: send('E error\tunknown command ' + parts[0]);
  }
});
rl.on('close', () => process.exit(0));

// Lockstep mode (bot/arena/lockstep.py; the Python host's _lockstep describes the format):
// `@<kind><step> <slots> <records>`, one fixed-width record per slot; the answers are one
// character per slot (a digit, or "!" with the old answer line after a unit separator),
// written in pieces every 50 ms while working.
const skipReceive = skip.includes('draft_receive');
const skipPost = skip.includes('main_postprocess');
const steps = new Map();  // slot -> its bot object
// The 30 cards' strings by their two character codes: a record's cards are read from this
// table instead of cut from the line, so that they are not made anew (less garbage to
// collect; a string is a value, so no bot can tell).
const CARD = new Array(128 * 128);
for (const s of 'RPS') for (let n = 0; n < 10; n++) CARD[s.charCodeAt(0) * 128 + 48 + n] = s + n;
function cardAt(text, o) {
  return CARD[text.charCodeAt(o) * 128 + text.charCodeAt(o + 1)] || text.substr(o, 2);
}
function handOf(text, o, width) {  // (a hand of another size than the game's 1 to 3 cards)
  const hand = [];
  for (let i = 4; i < width; i += 2) hand.push(cardAt(text, o + i));
  return hand;
}
function lockstep(line) {
  const [head, keysText, payload] = line.split(' ');
  const kind = head[1], step = Number(head.slice(2) || '0');
  const keys = keysText.split(',');
  const width = payload.length / keys.length;
  let chars = '', details = '';
  const cards = width - 4 >> 1;  // a main_play record's hand (after the notice and the base)
  let clock = performance.now(), lastWrite = clock;
  for (let k = 0; k < keys.length; k++) {
    const o = k * width;
    let where = 'the bot was made', value, failed = null, b;
    try {
      if (kind === 'd' && step === 0) {
        b = Object.freeze(make());
        steps.set(keys[k], b);
        where = 'draftPick';
        value = b.draftPick([cardAt(payload, o), cardAt(payload, o + 2)]);
      } else {
        b = steps.get(keys[k]);
        if (kind === 's') steps.delete(keys[k]);
        const receive = kind === 'd' || (kind === 'm' && step === 0);
        if (!(receive ? skipReceive : skipPost)) {
          where = receive ? 'draftReceive' : 'mainPostprocess';
          if (receive) b.draftReceive(cardAt(payload, o)); else b.mainPostprocess(cardAt(payload, o));
          const now = performance.now();
          if (now - clock > limitMs) failed = 'timeout\texceeded the time limit of ' + limit + ' s in ' + where + ': took ' + ((now - clock) / 1000).toFixed(3) + ' s';
          clock = now;
        }
        if (failed) value = undefined;
        else if (kind === 'd') { where = 'draftPick'; value = b.draftPick([cardAt(payload, o + 2), cardAt(payload, o + 4)]); }
        else if (kind === 'm') {
          where = 'mainPlay';
          const hand = cards === 3 ? [cardAt(payload, o + 4), cardAt(payload, o + 6), cardAt(payload, o + 8)]
            : cards === 2 ? [cardAt(payload, o + 4), cardAt(payload, o + 6)]
              : cards === 1 ? [cardAt(payload, o + 4)] : handOf(payload, o, width);
          value = b.mainPlay(hand, cardAt(payload, o + 2));
        } else value = 0;
      }
    } catch (ex) {
      if (!failed) failed = threw(ex, where === 'the bot was made' ? 'when the bot was made' : 'in ' + where);
    }
    const now = performance.now();
    if (!failed && kind !== 's' && now - clock > limitMs) failed = 'timeout\texceeded the time limit of ' + limit + ' s in ' + where + ': took ' + ((now - clock) / 1000).toFixed(3) + ' s';
    clock = now;
    if (!failed && Number.isInteger(value) && value >= 0 && value <= 9) chars += String(value);
    else {
      chars += '!';
      details += '\x1f' + (failed ? 'E ' + failed : Number.isInteger(value) ? String(value)
        : 'X ' + (value === undefined ? 'undefined' : JSON.stringify(value)));
    }
    if (now - lastWrite > 50) {  // progress: not hung
      fs.writeSync(answerFd, chars + details + '\n');
      chars = ''; details = ''; lastWrite = now;
    }
  }
  fs.writeSync(answerFd, chars + details + '\n');
}

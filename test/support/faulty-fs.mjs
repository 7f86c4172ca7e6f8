// A file system that misbehaves like a nearly full disk, for a child process started with
// `node --import <this file>`. Plain JavaScript so that Node loads it without a build step.
//
// Only files opened through fs/promises `open` whose path contains one of the comma-separated
// CHATBATCH_FAULT_PATHS are affected; their writes (FileHandle.write, or fs.writeSync on the
// handle's descriptor) then:
// - CHATBATCH_FAULT_SHORT=1: take at most half of what was asked (rounded up): short writes;
// - CHATBATCH_FAULT_AFTER=N: once N bytes in all have been written to such files, fail with
//   CHATBATCH_FAULT_CODE (default ENOSPC); the write that crosses N takes only what fits, as a
//   real disk does;
// - CHATBATCH_FAULT_SLOW_FAILURE_MS=M: a failing write takes M ms to fail (a struggling disk): an
//   asynchronous one lets the program go on working meanwhile, a synchronous one blocks it;
// - CHATBATCH_FAULT_CORRUPT_AT=N: the byte that would be the N-th written to such files (0-based,
//   counted over all of them) reaches the disk changed, and the write reports success: silent
//   corruption, as from a failing disk or controller.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { getSystemErrorMap } from 'node:util';

const patterns = (process.env.CHATBATCH_FAULT_PATHS ?? '').split(',').filter(Boolean);
const short = process.env.CHATBATCH_FAULT_SHORT === '1';
const failCode = process.env.CHATBATCH_FAULT_CODE ?? 'ENOSPC';
let budget = process.env.CHATBATCH_FAULT_AFTER ? Number(process.env.CHATBATCH_FAULT_AFTER) : Infinity;
const slowFailureMs = Number(process.env.CHATBATCH_FAULT_SLOW_FAILURE_MS ?? 0);
const corruptAt = process.env.CHATBATCH_FAULT_CORRUPT_AT ? Number(process.env.CHATBATCH_FAULT_CORRUPT_AT) : -1;
let writtenSoFar = 0;

const faulty = new WeakSet();
/** The descriptors of the faulty handles still open. */
const faultyFds = new Set();
const realOpen = fsp.open;
fsp.open = async function open(file, ...rest) {
  const handle = await realOpen.call(this, file, ...rest);
  if (patterns.some((pattern) => String(file).includes(pattern))) {
    faulty.add(handle);
    const fd = handle.fd;
    faultyFds.add(fd);
    // `close` is each handle's own property, not the prototype's: a closed descriptor's number is
    // soon another file's.
    const realClose = handle.close;
    handle.close = (...args) => {
      faultyFds.delete(fd);
      return realClose.apply(handle, args);
    };
  }
  return handle;
};
// Named imports (`import { open } from 'node:fs/promises'`) see the patched function too.
syncBuiltinESMExports();

const probe = await realOpen(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();
const realWrite = FileHandle.write;
const realWriteSync = fs.writeSync;

FileHandle.write = function write(...args) {
  const [data, offsetOrOptions, length, position] = args;
  if (!faulty.has(this) || !ArrayBuffer.isView(data)) return realWrite.apply(this, args);
  const fault = nextFault(data, offsetOrOptions, length, position);
  if (fault.error) return new Promise((_, reject) => setTimeout(() => reject(fault.error), slowFailureMs));
  return realWrite.call(this, fault.source, fault.from, fault.take, fault.position);
};

fs.writeSync = function writeSync(fd, ...args) {
  const [data, offsetOrOptions, length, position] = args;
  if (!faultyFds.has(fd) || !ArrayBuffer.isView(data)) return realWriteSync.call(this, fd, ...args);
  const fault = nextFault(data, offsetOrOptions, length, position);
  if (fault.error) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, slowFailureMs);
    throw fault.error;
  }
  return realWriteSync.call(this, fd, fault.source, fault.from, fault.take, fault.position);
};
syncBuiltinESMExports();

/** What the next write of `data` does: fail, or write `take` bytes of `source` from `from`. */
function nextFault(data, offsetOrOptions, length, position) {
  const options =
    typeof offsetOrOptions === 'object' && offsetOrOptions !== null ? offsetOrOptions : { offset: offsetOrOptions, length, position };
  const offset = options.offset ?? 0;
  const wanted = options.length ?? data.byteLength - offset;
  if (wanted > 0 && budget <= 0) return { error: systemError(failCode) };
  let take = short && wanted > 1 ? Math.ceil(wanted / 2) : wanted;
  take = Math.min(take, budget);
  budget -= take;
  let source = data;
  let from = offset;
  if (corruptAt >= writtenSoFar && corruptAt < writtenSoFar + take) {
    source = Buffer.from(data.buffer, data.byteOffset + offset, take);
    source = Buffer.from(source); // a copy: the caller's bytes stay as they were
    source[corruptAt - writtenSoFar] ^= 0x01;
    from = 0;
  }
  writtenSoFar += take;
  return { source, from, take, position: options.position ?? null };
}

function systemError(code) {
  const [errno, [, message]] = [...getSystemErrorMap().entries()].find(([, [name]]) => name === code);
  return Object.assign(new Error(`${code}: ${message}, write`), { code, errno, syscall: 'write' });
}

// One Lambda execution environment of the simulation: a plain Node process (no tsx, no project
// node_modules) started with its working directory at the function's task root (a copy of its asset
// directory outside the project). Like Lambda's Node.js runtime it loads the Handler string's module
// (`index.handler` -> index.mjs, index.js or index.cjs) and export, then serves one invocation at a
// time, sent by the parent over IPC with an absolute deadline for getRemainingTimeInMillis().
//
// Like the runtime it defines the global `awslambda` before the handler loads; a handler marked by
// awslambda.streamifyResponse gets a response stream, and its chunks go to the parent as written.
//
// A resolve hook refuses any module file outside the task root: what the bundle does not carry is
// not there in Lambda either, so it fails here as Runtime.ImportModuleError instead of quietly
// loading from a node_modules further up the disk. Plain JavaScript on purpose: it must run as is.
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// Static imports: resolved before the hook below, from the project (the runtime's own code, not the bundle's).
import '../../functions/common/awslambda-global.mjs';
import { isStreamingHandler, runStreamingHandler } from '../response-stream.mjs';

const taskRoot = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
const rootUrl = pathToFileURL(taskRoot + '/').href;

const hook = `
let root;
export function initialize(data) { root = data.root; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith('file:') && !r.url.startsWith(root)) {
    const e = new Error('Cannot find module ' + JSON.stringify(specifier) + ': it resolves to ' + r.url + ', outside the task root; Lambda has only what the bundle carries');
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return r;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { root: rootUrl } });

function errorOf(e, fallbackType) {
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    errorType: err.name && err.name !== 'Error' ? err.name : (fallbackType ?? 'Error'),
    errorMessage: err.message,
    trace: String(err.stack ?? '').split('\n'),
  };
}

async function loadHandler(spec) {
  const dot = spec.lastIndexOf('.');
  if (dot <= 0) throw Object.assign(new Error(`Bad handler ${spec}: expected "file.export"`), { name: 'Runtime.MalformedHandlerName' });
  const modulePath = spec.slice(0, dot);
  const exportName = spec.slice(dot + 1);
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(taskRoot, modulePath + ext)).find((f) => existsSync(f));
  if (!file) throw Object.assign(new Error(`Cannot find module '${modulePath}'`), { name: 'Runtime.ImportModuleError' });
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (e) {
    throw Object.assign(new Error(`${e?.code ?? 'Error'}: ${e?.message ?? e}`), { name: 'Runtime.ImportModuleError' });
  }
  const fn = mod[exportName] ?? mod.default?.[exportName];
  if (typeof fn !== 'function') throw Object.assign(new Error(`${modulePath}.${exportName} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
  return fn;
}

const t0 = performance.now();
let handler;
let initError;
try {
  handler = await loadHandler(process.env._HANDLER ?? 'index.handler');
} catch (e) {
  initError = errorOf(e);
}
process.send({ type: 'ready', initMs: performance.now() - t0, ...(initError ? { error: initError } : {}) });

/** Streams in progress, by request id: the parent cancels one when its caller goes away. */
const streams = new Map();
const sendAsync = (m) => new Promise((resolve) => process.send(m, undefined, {}, () => resolve()));

async function stream(m, context) {
  const s = await runStreamingHandler(handler, m.payload, context);
  streams.set(m.id, s);
  try {
    await sendAsync({ type: 'stream', id: m.id, contentType: s.contentType });
    for await (const c of s.body) await sendAsync({ type: 'chunk', id: m.id, data: Buffer.from(c).toString('base64') });
    process.send({ type: 'result', id: m.id, result: null });
  } finally {
    streams.delete(m.id);
  }
}

process.on('message', async (m) => {
  if (m?.type === 'cancel') streams.get(m.id)?.cancel();
  if (m?.type !== 'invoke') return;
  if (initError) {
    process.send({ type: 'result', id: m.id, error: initError });
    return;
  }
  process.env._X_AMZN_TRACE_ID = m.traceId;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: m.invokedFunctionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: m.id,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, m.deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  if (!initError && isStreamingHandler(handler)) {
    await stream(m, context).catch((e) => process.send({ type: 'result', id: m.id, error: errorOf(e) }));
    return;
  }
  try {
    // Callback-style handlers (three parameters) are supported as the Node.js runtime does.
    const result =
      handler.length >= 3
        ? await new Promise((resolve, reject) => {
            const r = handler(m.payload, context, (err, value) => (err ? reject(err) : resolve(value)));
            if (r && typeof r.then === 'function') r.then(resolve, reject);
          })
        : await handler(m.payload, context);
    process.send({ type: 'result', id: m.id, result: result === undefined ? null : result });
  } catch (e) {
    process.send({ type: 'result', id: m.id, error: errorOf(e) });
  }
});

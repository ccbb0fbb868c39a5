// Runs a synthesized cloud assembly as AWS would (`ch-scatter sim --cdk-out DIR`):
//   functions      every AWS::Lambda::Function from its own asset directory, in child processes
//                  (function-runtime.ts), with its Handler, Environment (references resolved to local
//                  names), Timeout, MemorySize and ReservedConcurrentExecutions;
//   Invoke         the local Lambda Invoke endpoint (../invoke-server.ts: status codes, 6 MB limit,
//                  X-Amz-Function-Error, 429 above a function's reserved concurrency). Functions reach
//                  it, and each other, through AWS_ENDPOINT_URL_LAMBDA with dummy credentials: the
//                  AWS code paths, not the local stack's;
//   Secrets        a Secrets Manager endpoint (AWS_ENDPOINT_URL_SECRETS_MANAGER) with the values the
//                  caller gives; a secret given none is answered as {"username":"default","password":""},
//                  what a ClickHouse server on loopback accepts out of the box;
//   HTTP API       the API Gateway routes (http-api.ts), plus admin routes under /_sim/;
//   rules          EventBridge rules with their exact Input (rules.ts);
//   S3             the stack's buckets (the exchange) on s3rver (../exchange-server.ts), reached through
//                  AWS_ENDPOINT_URL_S3 with the functions' dummy credentials.
// Not simulated: IAM policy evaluation, VPC networking, Lambda's real cold starts and CPU share.
import { startFunctionUrl } from './function-url.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInvokeServer, type LocalFunction } from '../invoke-server.js';
import { findSecret, readAssembly, type SimAssembly, type SimRule } from './assembly.js';
import { createFunctionRuntime, type FunctionRuntime } from './function-runtime.js';
import { startHttpApi } from './http-api.js';
import { fireRule, startRuleTimers, type TargetAnswer } from './rules.js';
import { startSecretsServer, type SecretValueOf } from './secrets-server.js';
import { startLocalExchange, type LocalExchange } from '../exchange-server.js';

export const DEFAULT_SECRET_VALUE = JSON.stringify({ username: 'default', password: '' });

export interface SimOptions {
  cdkOut: string;
  /** The HTTP API's port (0: any free one). */
  port?: number;
  /** Secret values by name, logical id or ARN (objects are sent as their JSON). */
  secrets?: Record<string, unknown>;
  /** Overrides `secrets` entirely (tests: a slow or missing secret). */
  secretValue?: SecretValueOf;
  /** Fire rate(...) rules on timers (the CLI does; tests fire rules by hand). */
  runSchedules?: boolean;
  /** Function logs and simulation notices (default: stderr). */
  log?: (line: string) => void;
}

export interface Sim {
  url: string;
  invokeUrl: string;
  secretsUrl: string;
  /** The buckets' S3 server, when the stack has buckets. */
  s3?: LocalExchange;
  /** Each RESPONSE_STREAM Function URL's local address, by the URL's logical id (the streaming door). */
  functionUrls: Record<string, string>;
  assembly: SimAssembly;
  functions: Map<string, FunctionRuntime>;
  /** Invocations of a function in progress (by function name). */
  inFlight(name: string): number;
  /** Invoke a rule's targets with its Input (by rule name or logical id) and wait for their answers. */
  fireRule(name: string): Promise<TargetAnswer[]>;
  stop(): Promise<void>;
}

function functionInfo(f: FunctionRuntime) {
  return {
    name: f.fn.name,
    logicalId: f.fn.logicalId,
    handler: f.fn.handler,
    taskRoot: f.taskRoot,
    timeoutS: f.fn.timeoutS,
    memoryMb: f.fn.memoryMb,
    ...(f.fn.reservedConcurrency !== undefined ? { reservedConcurrency: f.fn.reservedConcurrency } : {}),
    ...f.stats,
  };
}

/**
 * A rule by its name or logical id, or by a part of its logical id that only one rule has (CDK
 * derives logical ids from construct ids: `roll` finds `SchedulesRuleroll16FC11D3`).
 */
export function findRuleIn(rules: SimRule[], name: string): SimRule | undefined {
  const exact = rules.find((r) => r.name === name || r.logicalId === name);
  if (exact) return exact;
  const key = name.replace(/[^A-Za-z0-9]/g, '');
  const partial = key ? rules.filter((r) => r.logicalId.includes(key)) : [];
  return partial.length === 1 ? partial[0] : undefined;
}

export async function startSim(o: SimOptions): Promise<Sim> {
  const assembly = readAssembly(o.cdkOut);
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const sandboxDir = mkdtempSync(join(tmpdir(), 'ch-scatter-sim-'));
  const cleanups: Array<() => Promise<void> | void> = [() => rmSync(sandboxDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const given = o.secrets ?? {};
    const secretValueOf: SecretValueOf =
      o.secretValue ??
      ((secret) => {
        const key = Object.keys(given).find((k) => findSecret([secret], k));
        if (key === undefined) return DEFAULT_SECRET_VALUE;
        const v = given[key];
        return typeof v === 'string' ? v : JSON.stringify(v);
      });
    const secrets = await startSecretsServer(assembly.secrets, secretValueOf);
    cleanups.push(() => secrets.close());
    if (!o.secretValue) {
      for (const s of assembly.secrets) {
        if (!Object.keys(given).some((k) => findSecret([s], k))) log(`secret ${s.name}: no value given, answering ${DEFAULT_SECRET_VALUE}`);
      }
    }

    const served: Record<string, LocalFunction> = {};
    const concurrency: Record<string, number> = {};
    for (const f of assembly.functions) if (f.reservedConcurrency !== undefined) concurrency[f.name] = f.reservedConcurrency;
    const invoke = await startInvokeServer({ port: 0, functions: served, concurrency });
    cleanups.push(() => invoke.close());

    const credentials = { accessKeyId: 'ASIASIMULATION000000', secretAccessKey: 'simulation' };
    const s3 = assembly.buckets.length > 0 ? await startLocalExchange({ buckets: assembly.buckets, accessKeys: [credentials] }) : undefined;
    if (s3) cleanups.push(() => s3.stop());
    const baseEnv = {
      AWS_ENDPOINT_URL_LAMBDA: invoke.url,
      ...(s3 ? { AWS_ENDPOINT_URL_S3: s3.env.endpoint! } : {}),
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      // Dummy credentials: the endpoints check no signature, but the SDK signs every request.
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: 'simulation',
      // The functions target Lambda's Node.js 22 runtime; this machine's Node may be older, and the
      // SDK's notice about that would be repeated by every environment.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const functions = new Map<string, FunctionRuntime>();
    for (const f of assembly.functions) {
      const rt = createFunctionRuntime(f, { region: assembly.region, baseEnv, sandboxDir, log });
      functions.set(f.name, rt);
      served[f.name] = (payload) => rt.invoke(payload);
      cleanups.push(() => rt.stop());
    }

    const findRule = (name: string) => findRuleIn(assembly.rules, name);
    const api = await startHttpApi({
      routes: assembly.routes,
      throttle: assembly.throttle,
      invokeUrl: invoke.url,
      port: o.port ?? 0,
      admin: async (req, _body, url) => {
        if (!url.pathname.startsWith('/_sim/')) return undefined;
        if (req.method === 'GET' && url.pathname === '/_sim/functions') return { status: 200, body: [...functions.values()].map(functionInfo) };
        const m = /^\/_sim\/rules\/([^/]+)\/fire$/.exec(url.pathname);
        if (req.method === 'POST' && m) {
          const rule = findRule(decodeURIComponent(m[1]!));
          if (!rule) return { status: 404, body: { message: `no rule ${m[1]} (have: ${assembly.rules.map((r) => r.name).join(', ') || 'none'})` } };
          return { status: 200, body: { rule: rule.name, targets: await fireRule(rule, invoke.url, assembly.region) } };
        }
        return { status: 404, body: { message: `no simulation route ${req.method} ${url.pathname}` } };
      },
    });
    cleanups.push(() => api.close());
    const functionUrls: Record<string, string> = {};
    for (const fu of assembly.functionUrls.filter((f) => f.invokeMode === 'RESPONSE_STREAM')) {
      const s = await startFunctionUrl(fu, invoke.url);
      cleanups.push(() => s.close());
      functionUrls[fu.logicalId] = s.url;
      log(`function URL ${fu.logicalId} (${fu.functionName}, streaming): ${s.url}`);
    }
    if (o.runSchedules) cleanups.push(startRuleTimers(assembly.rules, invoke.url, assembly.region, log));

    return {
      url: api.url,
      invokeUrl: invoke.url,
      secretsUrl: secrets.url,
      ...(s3 ? { s3 } : {}),
      functionUrls,
      assembly,
      functions,
      inFlight: (name) => invoke.inFlight(name),
      fireRule: async (name) => {
        const rule = findRule(name);
        if (!rule) throw new Error(`no rule ${name} in the assembly (have: ${assembly.rules.map((r) => r.name).join(', ') || 'none'})`);
        return fireRule(rule, invoke.url, assembly.region);
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

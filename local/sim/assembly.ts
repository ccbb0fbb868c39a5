// Reads a synthesized cloud assembly (`cdk synth` output: manifest.json, <stack>.template.json,
// <stack>.assets.json, asset.<hash>/ directories) into what the simulation runs: the Lambda
// functions (asset directory, Handler, Environment, Timeout, MemorySize, reserved concurrency), the
// HTTP API routes with their integration and authorizer, the EventBridge rules with their targets'
// exact Input, and the secrets. CloudFormation references are resolved to local names: a function is
// `<stack>-<logical id>` (or its FunctionName), its ARN arn:aws:lambda:<region>:000000000000:function:<name>;
// a secret's ARN is arn:aws:secretsmanager:<region>:000000000000:secret:<name>-<6 chars>.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IntrinsicError, resolveValue, type PseudoParameters, type ResourceNames } from './intrinsics.js';

export const SIM_ACCOUNT = '000000000000';
export const DEFAULT_REGION = 'us-east-1';

export interface SimFunction {
  stack: string;
  logicalId: string;
  name: string;
  arn: string;
  /** The asset directory in the cloud assembly (what `cdk deploy` zips and uploads). */
  assetDir: string;
  handler: string;
  runtime: string;
  environment: Record<string, string>;
  timeoutS: number;
  memoryMb: number;
  /** ReservedConcurrentExecutions, when the template sets it. */
  reservedConcurrency?: number;
}

export interface SimRoute {
  method: string;
  /** '/query', or '$default'. */
  path: string;
  functionName: string;
  payloadFormatVersion: string;
  integrationTimeoutMs: number;
  authorization: { type: 'NONE' } | { type: 'AWS_IAM' } | { type: 'JWT'; issuer: string; audience: string[]; identitySource: string[] };
}

/** A Function URL (AWS::Lambda::Url) and the function it invokes. */
export interface SimFunctionUrl {
  logicalId: string;
  functionName: string;
  authType: string;
  invokeMode: string;
}

export interface SimRule {
  logicalId: string;
  name: string;
  scheduleExpression?: string;
  enabled: boolean;
  targets: Array<{ functionName: string; input?: string }>;
}

export interface SimSecret {
  logicalId?: string;
  name: string;
  arn: string;
  /** A secret the stack creates with a generated password (no value exists before deployment). */
  generated: boolean;
}

export interface SimAssembly {
  dir: string;
  region: string;
  functions: SimFunction[];
  routes: SimRoute[];
  throttle?: { rateLimit: number; burstLimit: number };
  rules: SimRule[];
  secrets: SimSecret[];
  /** The S3 buckets' names (the exchange's), created on the simulation's S3 server. */
  buckets: string[];
  functionUrls: SimFunctionUrl[];
}

export class AssemblyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssemblyError';
  }
}

type Resource = { Type: string; Properties?: Record<string, any>; Metadata?: Record<string, any> };

function readJson(file: string): any {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AssemblyError(`${file}: ${(e as Error).message}`);
  }
}

/** A deterministic 6-character suffix, as Secrets Manager appends to a secret's name in its ARN. */
function suffix6(s: string): string {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h.toString(36).padStart(6, 'x').slice(-6);
}

export function lambdaArn(region: string, name: string): string {
  return `arn:aws:lambda:${region}:${SIM_ACCOUNT}:function:${name}`;
}

export function readAssembly(dirIn: string): SimAssembly {
  const dir = resolve(dirIn);
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new AssemblyError(`${dir} is not a cloud assembly (no manifest.json): run \`npx cdk synth -o ${dirIn}\` first`);
  const manifest = readJson(manifestFile);
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, a]: [string, any]) => a.type === 'aws:cloudformation:stack') as [string, any][];
  if (stacks.length === 0) throw new AssemblyError(`${manifestFile}: no CloudFormation stack in the assembly`);

  const out: SimAssembly = { dir, region: DEFAULT_REGION, functions: [], routes: [], rules: [], secrets: [], buckets: [], functionUrls: [] };
  for (const [artifactId, artifact] of stacks) {
    const stackName: string = artifact.displayName ?? artifactId;
    const envRegion = /^aws:\/\/[^/]+\/(.+)$/.exec(artifact.environment ?? '')?.[1];
    const region = envRegion && envRegion !== 'unknown-region' ? envRegion : DEFAULT_REGION;
    out.region = region;
    const template = readJson(join(dir, artifact.properties.templateFile));
    const assetsFile = (artifact.dependencies ?? []).map((d: string) => manifest.artifacts[d]).find((a: any) => a?.type === 'cdk:asset-manifest')
      ?.properties?.file;
    const assets = assetsFile ? readJson(join(dir, assetsFile)) : { files: {} };
    readStack(out, { stackName, region, template, assets, dir });
  }
  return out;
}

function readStack(
  out: SimAssembly,
  s: { stackName: string; region: string; template: { Resources?: Record<string, Resource> }; assets: { files: Record<string, any> }; dir: string },
): void {
  const resources = s.template.Resources ?? {};
  const p: PseudoParameters = { region: s.region, accountId: SIM_ACCOUNT, stackName: s.stackName, partition: 'aws' };
  const byType = (t: string) => Object.entries(resources).filter(([, r]) => r.Type === t);

  // Physical names first (a function's FunctionName may itself reference other resources' names).
  const physical = new Map<string, string>();
  const secretArns = new Map<string, string>();
  const generatedName = (id: string) => `${s.stackName}-${id}`.slice(0, 64);
  const names: ResourceNames = {
    ref(id) {
      const r = resources[id];
      if (!r) return undefined;
      if (r.Type === 'AWS::SecretsManager::Secret') return secretArns.get(id);
      return physical.get(id) ?? generatedName(id);
    },
    getAtt(id, attr) {
      const r = resources[id];
      if (!r) return undefined;
      const name = physical.get(id) ?? generatedName(id);
      if (attr !== 'Arn') return r.Type === 'AWS::ApiGatewayV2::Api' && attr === 'ApiEndpoint' ? `http://127.0.0.1` : name;
      switch (r.Type) {
        case 'AWS::Lambda::Function':
          return lambdaArn(s.region, name);
        case 'AWS::IAM::Role':
          return `arn:aws:iam::${SIM_ACCOUNT}:role/${name}`;
        case 'AWS::Logs::LogGroup':
          return `arn:aws:logs:${s.region}:${SIM_ACCOUNT}:log-group:${name}:*`;
        case 'AWS::Events::Rule':
          return `arn:aws:events:${s.region}:${SIM_ACCOUNT}:rule/${name}`;
        case 'AWS::SecretsManager::Secret':
          return secretArns.get(id);
        default:
          return `arn:aws:${r.Type.split('::')[1]!.toLowerCase()}:${s.region}:${SIM_ACCOUNT}:${name}`;
      }
    },
  };
  const resolveAt = (v: unknown, path: string) => {
    try {
      return resolveValue(v, names, p, `${s.stackName}.${path}`);
    } catch (e) {
      if (e instanceof IntrinsicError) throw new AssemblyError(e.message);
      throw e;
    }
  };

  for (const [id, r] of byType('AWS::SecretsManager::Secret')) {
    const name = r.Properties?.Name ? String(resolveAt(r.Properties.Name, `${id}.Name`)) : generatedName(id);
    const arn = `arn:aws:secretsmanager:${s.region}:${SIM_ACCOUNT}:secret:${name}-${suffix6(name)}`;
    secretArns.set(id, arn);
    out.secrets.push({ logicalId: id, name, arn, generated: !!r.Properties?.GenerateSecretString });
  }
  for (const [id, r] of byType('AWS::S3::Bucket')) {
    // A bucket name is lower case, at most 63 characters (CloudFormation generates one so).
    const name = r.Properties?.BucketName ? String(resolveAt(r.Properties.BucketName, `${id}.BucketName`)) : generatedName(id).toLowerCase().slice(0, 63);
    physical.set(id, name);
    out.buckets.push(name);
  }
  for (const [id, r] of byType('AWS::Lambda::Function')) {
    if (r.Properties?.FunctionName) physical.set(id, String(resolveAt(r.Properties.FunctionName, `${id}.FunctionName`)));
  }

  for (const [id, r] of byType('AWS::Lambda::Function')) {
    const props = r.Properties ?? {};
    const name = names.ref(id)!;
    const key = String(resolveAt(props.Code?.S3Key ?? '', `${id}.Code.S3Key`));
    const asset = Object.values(s.assets.files).find((f: any) => Object.values(f.destinations ?? {}).some((d: any) => d.objectKey === key));
    const assetPath: string | undefined = asset?.source?.path ?? r.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new AssemblyError(`${s.stackName}.${id}: no asset directory for its code (${key || 'inline code is not supported'})`);
    const env = (resolveAt(props.Environment?.Variables ?? {}, `${id}.Environment.Variables`) ?? {}) as Record<string, unknown>;
    out.functions.push({
      stack: s.stackName,
      logicalId: id,
      name,
      arn: lambdaArn(s.region, name),
      assetDir: join(s.dir, assetPath),
      handler: String(props.Handler ?? 'index.handler'),
      runtime: String(props.Runtime ?? ''),
      environment: Object.fromEntries(
        Object.entries(env)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)]),
      ),
      timeoutS: Number(props.Timeout ?? 3),
      memoryMb: Number(props.MemorySize ?? 128),
      ...(props.ReservedConcurrentExecutions !== undefined ? { reservedConcurrency: Number(props.ReservedConcurrentExecutions) } : {}),
    });
  }

  // A function is named in an integration URI or a rule target by ARN (GetAtt) or name (Ref).
  const functionNameOf = (v: unknown, path: string): string => {
    const text = String(resolveAt(v, path));
    const m = /^arn:aws:lambda:[^:]*:[^:]*:function:([^:]+)/.exec(text) ?? /:function:([^:/]+)\/invocations$/.exec(text);
    return m ? m[1]! : text;
  };

  const integrations = new Map(byType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, r.Properties ?? {}]));
  const authorizers = new Map(byType('AWS::ApiGatewayV2::Authorizer').map(([id, r]) => [id, r.Properties ?? {}]));
  for (const [id, r] of byType('AWS::ApiGatewayV2::Route')) {
    const props = r.Properties ?? {};
    const routeKey = String(props.RouteKey);
    const [method, path] = routeKey === '$default' ? ['ANY', '$default'] : routeKey.split(' ');
    const target = String(resolveAt(props.Target, `${id}.Target`));
    const integrationId = [...integrations.keys()].find((k) => target === `integrations/${names.ref(k)}`);
    const integration = integrationId ? integrations.get(integrationId)! : undefined;
    if (!integration) throw new AssemblyError(`${s.stackName}.${id}: route ${routeKey} targets ${target}, which is not an integration in the template`);
    if (integration.IntegrationType !== 'AWS_PROXY') throw new AssemblyError(`${s.stackName}.${id}: only Lambda proxy integrations are simulated`);
    const authType = String(props.AuthorizationType ?? 'NONE');
    let authorization: SimRoute['authorization'] = { type: 'NONE' };
    if (authType === 'AWS_IAM') authorization = { type: 'AWS_IAM' };
    else if (authType === 'JWT') {
      const authId = String(resolveAt(props.AuthorizerId, `${id}.AuthorizerId`));
      const a = [...authorizers.entries()].find(([k]) => names.ref(k) === authId)?.[1];
      if (!a) throw new AssemblyError(`${s.stackName}.${id}: JWT authorizer ${authId} not found`);
      const jwt = resolveAt(a.JwtConfiguration ?? {}, `${id}.JwtConfiguration`) as { Issuer?: string; Audience?: string[] };
      authorization = {
        type: 'JWT',
        issuer: String(jwt.Issuer ?? ''),
        audience: (jwt.Audience ?? []).map(String),
        identitySource: ((a.IdentitySource as string[] | undefined) ?? ['$request.header.Authorization']).map(String),
      };
    } else if (authType !== 'NONE') throw new AssemblyError(`${s.stackName}.${id}: authorization type ${authType} is not simulated`);
    out.routes.push({
      method: method!.toUpperCase(),
      path: path!,
      functionName: functionNameOf(integration.IntegrationUri, `${integrationId}.IntegrationUri`),
      payloadFormatVersion: String(integration.PayloadFormatVersion ?? '2.0'),
      integrationTimeoutMs: Number(integration.TimeoutInMillis ?? 30_000),
      authorization,
    });
  }
  for (const [, r] of byType('AWS::ApiGatewayV2::Stage')) {
    const d = r.Properties?.DefaultRouteSettings;
    if (d?.ThrottlingRateLimit !== undefined) out.throttle = { rateLimit: Number(d.ThrottlingRateLimit), burstLimit: Number(d.ThrottlingBurstLimit ?? 0) };
  }

  for (const [id, r] of byType('AWS::Lambda::Url')) {
    const props = r.Properties ?? {};
    out.functionUrls.push({
      logicalId: id,
      functionName: functionNameOf(props.TargetFunctionArn, `${id}.TargetFunctionArn`),
      authType: String(props.AuthType ?? 'NONE'),
      invokeMode: String(props.InvokeMode ?? 'BUFFERED'),
    });
  }

  for (const [id, r] of byType('AWS::Events::Rule')) {
    const props = r.Properties ?? {};
    const targets = ((props.Targets ?? []) as Array<Record<string, unknown>>).map((t, i) => ({
      functionName: functionNameOf(t.Arn, `${id}.Targets[${i}].Arn`),
      ...(t.Input !== undefined ? { input: String(resolveAt(t.Input, `${id}.Targets[${i}].Input`)) } : {}),
    }));
    out.rules.push({
      logicalId: id,
      name: props.Name ? String(resolveAt(props.Name, `${id}.Name`)) : generatedName(id),
      ...(props.ScheduleExpression ? { scheduleExpression: String(props.ScheduleExpression) } : {}),
      enabled: (props.State ?? 'ENABLED') === 'ENABLED',
      targets,
    });
  }

  // Secrets the stack imports by name or ARN appear only inside policies and environments: collect
  // them from the functions' environments, whole values or strings inside a JSON value (a shard's
  // CH_SCATTER_SHARD carries its secrets' ARNs, the authorizer's CH_SCATTER_USERS_SECRET_ARN is one).
  for (const f of out.functions) {
    for (const v of Object.values(f.environment)) {
      for (const arn of secretArnsIn(v)) {
        const m = /^arn:aws:secretsmanager:[^:]*:[^:]*:secret:(.+)$/.exec(arn)!;
        if (!out.secrets.some((x) => x.arn === arn)) out.secrets.push({ name: m[1]!, arn, generated: false });
      }
    }
  }
}

/** The Secrets Manager ARNs an environment value is or holds (as strings anywhere in a JSON value). */
function secretArnsIn(value: string): string[] {
  const isArn = (s: string) => /^arn:aws:secretsmanager:[^:]*:[^:]*:secret:.+$/.test(s);
  if (isArn(value)) return [value];
  if (!/^[[{]/.test(value)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'string') {
      if (isArn(x)) out.push(x);
    } else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(parsed);
  return out;
}

/** The secret a SecretId (name, partial ARN or complete ARN) names, if the assembly has it. */
export function findSecret(secrets: SimSecret[], secretId: string): SimSecret | undefined {
  return secrets.find((s) => s.arn === secretId || s.name === secretId || s.logicalId === secretId || s.arn.startsWith(`${secretId}-`));
}

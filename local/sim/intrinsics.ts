// CloudFormation intrinsic functions, resolved the way a deployment would resolve them, with local
// names: Ref and Fn::GetAtt of sibling resources, pseudo parameters, Fn::Join, Fn::Sub, Fn::Select,
// Fn::Split. Anything else (Fn::ImportValue, Fn::If, a Ref to a resource the simulation has no name
// for) is an error naming the template path, rather than a value the functions would silently carry.

/** What a Ref / GetAtt resolves to, by logical id. */
export interface ResourceNames {
  ref(logicalId: string): string | undefined;
  getAtt(logicalId: string, attribute: string): string | undefined;
}

export interface PseudoParameters {
  region: string;
  accountId: string;
  stackName: string;
  partition: string;
}

export class IntrinsicError extends Error {
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'IntrinsicError';
  }
}

function pseudo(name: string, p: PseudoParameters): string | undefined {
  switch (name) {
    case 'AWS::Region':
      return p.region;
    case 'AWS::AccountId':
      return p.accountId;
    case 'AWS::StackName':
      return p.stackName;
    case 'AWS::Partition':
      return p.partition;
    case 'AWS::URLSuffix':
      return 'amazonaws.com';
    case 'AWS::NoValue':
      return undefined;
    case 'AWS::StackId':
      return `arn:${p.partition}:cloudformation:${p.region}:${p.accountId}:stack/${p.stackName}/00000000-0000-0000-0000-000000000000`;
    default:
      return undefined;
  }
}

/** Resolve `value` to plain JSON (strings, numbers, arrays, objects); `path` names it in errors. */
export function resolveValue(value: unknown, names: ResourceNames, p: PseudoParameters, path: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => resolveValue(v, names, p, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [key, arg] = entries[0]!;
    if (key === 'Ref' || key.startsWith('Fn::')) return resolveIntrinsic(key, arg, names, p, `${path}.${key}`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) out[k] = resolveValue(v, names, p, `${path}.${k}`);
  return out;
}

function str(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new IntrinsicError(path, `expected a string, got ${JSON.stringify(v)}`);
}

function resolveIntrinsic(fn: string, arg: unknown, names: ResourceNames, p: PseudoParameters, path: string): unknown {
  switch (fn) {
    case 'Ref': {
      const id = str(arg, path);
      if (id.startsWith('AWS::')) {
        const v = pseudo(id, p);
        if (v === undefined && id !== 'AWS::NoValue') throw new IntrinsicError(path, `unknown pseudo parameter ${id}`);
        return v;
      }
      const v = names.ref(id);
      if (v === undefined) throw new IntrinsicError(path, `Ref to ${id}: the simulation has no local name for that resource`);
      return v;
    }
    case 'Fn::GetAtt': {
      const [id, attr] = Array.isArray(arg) ? arg : String(arg).split('.');
      const v = names.getAtt(str(id, path), str(attr, path));
      if (v === undefined) throw new IntrinsicError(path, `Fn::GetAtt ${String(id)}.${String(attr)}: the simulation has no local value for it`);
      return v;
    }
    case 'Fn::Join': {
      const [sep, parts] = arg as [unknown, unknown];
      const list = resolveValue(parts, names, p, `${path}[1]`);
      if (!Array.isArray(list)) throw new IntrinsicError(path, 'Fn::Join needs a list');
      return list.map((x, i) => str(x, `${path}[1][${i}]`)).join(str(sep, `${path}[0]`));
    }
    case 'Fn::Sub': {
      const [template, vars] = Array.isArray(arg) ? (arg as [unknown, Record<string, unknown>]) : [arg, {}];
      const local = Object.fromEntries(Object.entries(vars ?? {}).map(([k, v]) => [k, str(resolveValue(v, names, p, `${path}.${k}`), path)]));
      return str(template, path).replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
        if (name in local) return local[name]!;
        if (name.startsWith('AWS::')) return str(pseudo(name, p), path);
        const dot = name.indexOf('.');
        const v = dot > 0 ? names.getAtt(name.slice(0, dot), name.slice(dot + 1)) : names.ref(name);
        if (v === undefined) throw new IntrinsicError(path, `Fn::Sub \${${name}}: the simulation has no local value for it`);
        return v;
      });
    }
    case 'Fn::Select': {
      const [index, list] = arg as [unknown, unknown];
      const items = resolveValue(list, names, p, `${path}[1]`);
      const i = Number(resolveValue(index, names, p, `${path}[0]`));
      if (!Array.isArray(items) || !(i >= 0 && i < items.length)) throw new IntrinsicError(path, 'Fn::Select index out of range');
      return items[i];
    }
    case 'Fn::Split': {
      const [sep, source] = arg as [unknown, unknown];
      return str(resolveValue(source, names, p, `${path}[1]`), path).split(str(sep, path));
    }
    case 'Fn::GetAZs':
      return [`${p.region}a`, `${p.region}b`, `${p.region}c`];
    default:
      throw new IntrinsicError(path, `${fn} is not supported by the simulation`);
  }
}

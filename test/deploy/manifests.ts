import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { BenchReport } from '../../bench/report/result-types';
import { footprintOf, readSizing, type Footprint, type Sizing } from '../../bench/report/sizing';

/**
 * Renders the Kustomize trees under deploy/ and validates what they make, offline:
 * - the schema: kubernetes-models (JSON Schemas compiled from the Kubernetes 1.36 OpenAPI spec)
 *   and @kubernetes-models/keda (from KEDA v2.19.0's API types), each object's `validate()`;
 * - unknown fields, which those schemas let through (as kubeconform does without -strict): the
 *   same packages' TypeScript types, through the compiler's excess-property check.
 */

export const ROOT = resolve(__dirname, '../..');

export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  [field: string]: unknown;
}

/** `kubectl kustomize <dir>` with the pinned kubectl (scripts/kubectl.sh), parsed. */
export function render(dir: string): K8sObject[] {
  const yaml = execFileSync('bash', [join(ROOT, 'scripts/kubectl.sh'), 'kustomize', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(yaml).map((doc) => {
    if (doc.errors.length > 0) throw doc.errors[0];
    return doc.toJS() as K8sObject;
  });
}

interface Kind {
  model: new (data: never) => { validate(): void };
  /** Module and interface of its TypeScript type. */
  module: string;
  type: string;
}

/** Every kind deploy/ may make. Another kind needs its model here, or the spec fails. */
const KINDS: Record<string, Kind> = {
  'v1/Namespace': core(Namespace, 'Namespace'),
  'v1/ServiceAccount': core(ServiceAccount, 'ServiceAccount'),
  'v1/Service': core(Service, 'Service'),
  'apps/v1/Deployment': {
    model: Deployment,
    module: 'kubernetes-models/apps/v1/Deployment',
    type: 'IDeployment',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'keda.sh/v1alpha1/ScaledObject': keda(ScaledObject, 'ScaledObject'),
  'keda.sh/v1alpha1/TriggerAuthentication': keda(TriggerAuthentication, 'TriggerAuthentication'),
};

function core(model: Kind['model'], kind: string): Kind {
  return { model, module: `kubernetes-models/v1/${kind}`, type: `I${kind}` };
}

function keda(model: Kind['model'], kind: string): Kind {
  return { model, module: `@kubernetes-models/keda/keda.sh/v1alpha1/${kind}`, type: `I${kind}` };
}

export function describeObject(object: K8sObject): string {
  return `${object.kind}/${object.metadata?.name}`;
}

function kindOf(object: K8sObject): Kind {
  const kind = KINDS[`${object.apiVersion}/${object.kind}`];
  if (!kind) throw new Error(`no schema for ${object.apiVersion} ${object.kind}: add it to KINDS`);
  return kind;
}

/** Schema violations, one line per object that has any. */
export function schemaErrors(objects: K8sObject[]): string[] {
  const errors: string[] = [];
  for (const object of objects) {
    const { model } = kindOf(object);
    try {
      new model(object as never).validate();
    } catch (error) {
      errors.push(`${describeObject(object)}: ${(error as Error).message}`);
    }
  }
  return errors;
}

/**
 * Fields the Kubernetes and KEDA types do not have (a misspelt probe, a field at the wrong level),
 * found by type-checking each object as a literal of its kind's interface.
 */
export function unknownFieldErrors(objects: K8sObject[]): string[] {
  // An ES module (.mts) beside this file, so that the packages resolve as they do here.
  const file = join(__dirname, '__rendered__.mts');
  const owners: string[] = [];
  const lines: string[] = [];
  objects.forEach((object, i) => {
    const { module, type } = kindOf(object);
    lines.push(`import type { ${type} as T${i} } from '${module}';`);
    owners.push(describeObject(object));
  });
  objects.forEach((object, i) => {
    const json = JSON.stringify(object, null, 2).split('\n');
    json[0] = `export const o${i}: T${i} = ${json[0]}`;
    for (const line of json) {
      lines.push(line);
      owners.push(describeObject(object));
    }
  });
  const text = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, text, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? text : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${owners[line] ?? '?'}: ${lines[line]?.trim()} ← ${message}`;
  });
}

/** The final stage of the Dockerfile: its user, exposed port and NODE_OPTIONS. */
export function dockerImage(): { user: string; exposedPort: number; nodeOptions: string } {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const user = /^USER\s+(\S+)/m.exec(stage)?.[1];
  const port = /^EXPOSE\s+(\d+)/m.exec(stage)?.[1];
  const nodeOptions = /^ENV NODE_OPTIONS="?([^"\n]+)"?$/m.exec(stage)?.[1];
  if (!user || !port || !nodeOptions)
    throw new Error('Dockerfile: no USER, EXPOSE or NODE_OPTIONS');
  return { user, exposedPort: Number(port), nodeOptions };
}

/** V8's heap cap for these flags, in MiB: old space plus the young generation (3 semi-spaces). */
export function heapCapMiB(nodeOptions: string): number {
  const old = /--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1];
  const semi = /--max-semi-space-size=(\d+)/.exec(nodeOptions)?.[1];
  if (!old || !semi) throw new Error(`NODE_OPTIONS sets no heap limits: ${nodeOptions}`);
  return Number(old) + 3 * Number(semi);
}

/**
 * The reviewed sizing the Deployment's resources are set from (deploy/sizing.json), and the
 * footprint the benchmark result it cites gives: the two must agree, so the file cannot drift
 * from the run it names.
 */
export function reviewedSizing(): { sizing: Sizing; cited: Footprint } {
  const sizing = readSizing(ROOT);
  const result = JSON.parse(readFileSync(join(ROOT, sizing.source.result), 'utf8')) as BenchReport;
  return { sizing, cited: footprintOf(result) };
}

/** A Kubernetes quantity: cores for CPU, MiB for memory. */
export function quantity(value: string | number | undefined, unit: 'cores' | 'MiB'): number {
  if (value === undefined) throw new Error(`no ${unit === 'cores' ? 'cpu' : 'memory'} quantity`);
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(value));
  if (!match) throw new Error(`unreadable quantity ${value}`);
  const n = Number(match[1]);
  const factor: Record<string, number> = {
    m: 1e-3,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    k: 1e3,
    M: 1e6,
    G: 1e9,
  };
  const scaled = n * (match[2] ? factor[match[2]] : 1);
  return unit === 'cores' ? scaled : scaled / 2 ** 20;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { getMetadataStorage } from 'class-validator';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/config.loader';
import { variablesReadableFromFile } from '../../src/config/default.decorator';
import { EnvironmentVariables } from '../../src/config/environment.dto';
import { HealthController } from '../../src/health/health.controller';
import { windowHeapWarning } from '../../src/inbound/window-heap';
import { MetricsController } from '../../src/metrics/metrics.controller';
import { MARGINS } from '../../bench/report/sizing';
import {
  describeObject,
  dockerImage,
  heapCapMiB,
  median,
  quantity,
  render,
  reviewedSizing,
  ROOT,
  schemaErrors,
  unknownFieldErrors,
  type K8sObject,
} from './manifests';

/**
 * The manifests under deploy/, rendered by Kustomize (kubectl 1.35's, scripts/kubectl.sh) and
 * validated against the Kubernetes and KEDA schemas, then held to the code they deploy: the
 * routes, the settings, the shutdown bound, the image and the reviewed sizing (deploy/sizing.json).
 */

/** What main.ts allows a stop beyond SHUTDOWN_TIMEOUT_MS (read from it: importing it starts it). */
const SHUTDOWN_MARGIN_MS = Number(
  /const SHUTDOWN_MARGIN_MS = ([\d_]+);/
    .exec(readFileSync(join(ROOT, 'src/main.ts'), 'utf8'))?.[1]
    ?.replaceAll('_', ''),
);

/** The uid of each user name an image of ours may run as: the official Node images' `node`. */
const IMAGE_UIDS: Record<string, number> = { node: 1000 };

/** Sample values for variables that come from Secrets other than files (they must validate). */
const SECRET_SAMPLES: Record<string, string> = {
  'mailbridge-redis/url': 'rediss://:sample-password@redis.example.com:6380',
};

/**
 * What KEDA v2.19.0's Kafka scaler reads from a trigger's metadata and from its authentication
 * (pkg/scalers/kafka_scaler.go at that tag): anything else is silently ignored by KEDA.
 */
const KAFKA_TRIGGER_METADATA = new Set([
  'bootstrapServers',
  'bootstrapServersFromEnv',
  'consumerGroup',
  'consumerGroupFromEnv',
  'topic',
  'topicFromEnv',
  'partitionLimitation',
  'offsetResetPolicy',
  'lagThreshold',
  'activationLagThreshold',
  'allowIdleConsumers',
  'excludePersistentLag',
  'scaleToZeroOnInvalidOffset',
  'limitToPartitionsWithLag',
  'ensureEvenDistributionOfPartitions',
  'version',
  'tls',
  'sasl',
  'saslTokenProvider',
  'unsafeSsl',
  'awsRegion',
]);
const KAFKA_AUTH_PARAMETERS = new Set([
  'sasl',
  'tls',
  'username',
  'password',
  'ca',
  'cert',
  'key',
  'keyPassword',
  'saslTokenProvider',
  'scopes',
  'oauthTokenEndpointUri',
  'oauthExtensions',
  'keytab',
  'realm',
  'kerberosConfig',
  'kerberosServiceName',
  'kerberosDisableFAST',
]);
/** mailbridge's KAFKA_SASL_MECHANISM as KEDA's `sasl` names it. */
const KEDA_SASL: Record<string, string> = {
  plain: 'plaintext',
  'scram-sha-256': 'scram_sha256',
  'scram-sha-512': 'scram_sha512',
};

/** Every GET route the service serves, from the controllers' Nest metadata. */
function getRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const controller of [HealthController, MetricsController]) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller));
    const prototype = controller.prototype as unknown as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.GET) continue;
      const path = String(Reflect.getMetadata(PATH_METADATA, handler));
      routes.add(`/${[base, path].filter((p) => p && p !== '/').join('/')}`);
    }
  }
  return routes;
}

/** Every variable mailbridge reads: the schema's fields and the `_FILE` forms of the keys. */
function settings(): Set<string> {
  const fields = getMetadataStorage()
    .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
    .map((m) => m.propertyName);
  const files = variablesReadableFromFile(EnvironmentVariables).map((name) => `${name}_FILE`);
  return new Set([...fields, ...files]);
}

function only<T extends K8sObject>(objects: K8sObject[], kind: string): T {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as T;
}

/** The Service of that name. */
function service(objects: K8sObject[], name: string): IService & K8sObject {
  const found = objects.find((o) => o.kind === 'Service' && o.metadata.name === name);
  if (!found) throw new Error(`no Service named ${name}`);
  return found as IService & K8sObject;
}

function mainContainer(deployment: IDeployment): IContainer {
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === 'mailbridge');
  if (!container) throw new Error('no container named mailbridge');
  return container;
}

/** The container's environment as the process would see it, and the config it loads to. */
function loadedConfig(deployment: IDeployment): AppConfig {
  const container = mainContainer(deployment);
  const dir = mkdtempSync(join(tmpdir(), 'mailbridge-deploy-'));
  try {
    const env: Record<string, string> = {};
    for (const variable of container.env ?? []) {
      if (variable.value !== undefined) {
        env[variable.name] = variable.value;
      } else {
        const ref = variable.valueFrom?.secretKeyRef;
        const sample = ref && SECRET_SAMPLES[`${ref.name}/${ref.key}`];
        if (sample === undefined) throw new Error(`${variable.name}: no sample for its source`);
        env[variable.name] = sample;
      }
    }
    // Each key file is read from a stand-in holding a sample key, as long as the longest minimum
    // a key setting has (SUPPRESSION_HASH_KEY: 32 characters); the unsubscribe token key is 32
    // bytes in base64.
    for (const name of Object.keys(env).filter((n) => n.endsWith('_FILE'))) {
      const standIn = join(dir, basename(env[name]));
      writeFileSync(
        standIn,
        name === 'UNSUBSCRIBE_TOKEN_KEY_FILE'
          ? `${Buffer.alloc(32, 7).toString('base64')}\n`
          : 'sample-key-of-forty-characters-for-tests\n',
      );
      env[name] = standIn;
    }
    return loadConfig(env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function probePath(probe: IProbe | undefined): string | undefined {
  return probe?.httpGet?.path;
}

const TREES = [
  { dir: 'deploy/base', namespace: undefined, extraKinds: [] },
  {
    dir: 'deploy/overlays/production',
    namespace: 'mailbridge',
    extraKinds: ['Namespace', 'TriggerAuthentication'],
  },
];

describe.each(TREES)('$dir', ({ dir, namespace, extraKinds }) => {
  let objects: K8sObject[];
  let deployment: IDeployment;
  let container: IContainer;
  let config: AppConfig;

  beforeAll(() => {
    objects = render(dir);
    deployment = only<IDeployment & K8sObject>(objects, 'Deployment');
    container = mainContainer(deployment);
    config = loadedConfig(deployment);
  });

  it('renders the Deployment, its ServiceAccount, the metrics and unsubscribe Services, the PDB and the ScaledObject', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(
      [
        'Deployment',
        'PodDisruptionBudget',
        'ScaledObject',
        'Service',
        'Service',
        'ServiceAccount',
        ...extraKinds,
      ].sort(),
    );
  });

  it('validates every object against the Kubernetes 1.36 and KEDA 2.19 schemas', () => {
    expect(schemaErrors(objects)).toEqual([]);
  });

  it('sets no field those schemas do not have', () => {
    expect(unknownFieldErrors(objects)).toEqual([]);
  });

  it('puts every namespaced object in the namespace', () => {
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect([describeObject(object), object.metadata.namespace]).toEqual([
        describeObject(object),
        namespace,
      ]);
    }
  });

  it('sets only variables mailbridge reads, and they load as its configuration', () => {
    const known = settings();
    const names = (container.env ?? []).map((v) => v.name);
    expect(names.filter((name) => !known.has(name) && name !== 'NODE_OPTIONS')).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    expect(config.mode).toBe('production');
  });

  it('gives keys as files from a mounted Secret, never as values', () => {
    const env = container.env ?? [];
    const readableFromFile = variablesReadableFromFile(EnvironmentVariables);
    expect(env.filter((v) => readableFromFile.includes(v.name)).map((v) => v.name)).toEqual([]);
    const secretMounts = (container.volumeMounts ?? []).filter((mount) =>
      deployment.spec?.template.spec?.volumes?.some((v) => v.name === mount.name && v.secret),
    );
    for (const variable of env.filter((v) => v.name.endsWith('_FILE'))) {
      const mount = secretMounts.find((m) => dirname(variable.value ?? '') === m.mountPath);
      expect([variable.name, mount?.readOnly]).toEqual([variable.name, true]);
    }
  });

  it('probes the routes the service serves: liveness and startup on /health/live, readiness on /health/ready', () => {
    const routes = getRoutes();
    expect(routes).toEqual(new Set(['/health/live', '/health/ready', '/metrics']));
    expect(probePath(container.startupProbe)).toBe('/health/live');
    expect(probePath(container.livenessProbe)).toBe('/health/live');
    expect(probePath(container.readinessProbe)).toBe('/health/ready');
    const metrics = service(objects, 'mailbridge-metrics');
    expect(routes).toContain(metrics.metadata?.annotations?.['prometheus.io/path']);
  });

  it('serves, probes and exposes the port the service listens on (HTTP_PORT, the image EXPOSE)', () => {
    const port = (container.ports ?? []).find((p) => p.name === 'http');
    expect(port?.containerPort).toBe(config.httpPort);
    expect(port?.containerPort).toBe(dockerImage().exposedPort);
    for (const probe of [
      container.startupProbe,
      container.livenessProbe,
      container.readinessProbe,
    ]) {
      expect(probe?.httpGet?.port).toBe('http');
    }
    const metrics = service(objects, 'mailbridge-metrics');
    expect(metrics.spec?.ports?.map((p) => p.targetPort)).toEqual(['http']);
    expect(metrics.metadata?.annotations?.['prometheus.io/port']).toBe(String(config.httpPort));
    expect(metrics.spec?.publishNotReadyAddresses).toBe(true);
  });

  it('exposes the one-click unsubscribe listener on its own port and Service, apart from http', () => {
    expect(config.unsubscribe.enabled).toBe(true);
    expect(new URL(config.unsubscribe.baseUrl).protocol).toBe('https:');
    const port = (container.ports ?? []).find((p) => p.name === 'unsubscribe');
    expect(port?.containerPort).toBe(config.unsubscribe.httpPort);
    expect(port?.containerPort).not.toBe(config.httpPort);
    const unsubscribe = service(objects, 'mailbridge-unsubscribe');
    expect(unsubscribe.spec?.ports?.map((p) => p.targetPort)).toEqual(['unsubscribe']);
    // A replica whose broker is away still takes unsubscribes (their events wait in Redis).
    expect(unsubscribe.spec?.publishNotReadyAddresses).toBe(true);
    expect(unsubscribe.spec?.selector).toEqual(
      service(objects, 'mailbridge-metrics').spec?.selector,
    );
    // Behind an ingress: the client is the address the ingress saw, not one the client wrote.
    expect(config.unsubscribe.trustedProxies).toBe(1);
  });

  it('gives a stop longer than the service can take: SHUTDOWN_TIMEOUT_MS plus main.ts margin', () => {
    expect(SHUTDOWN_MARGIN_MS).toBeGreaterThan(0);
    const graceMs = (deployment.spec?.template.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    expect(graceMs).toBeGreaterThan(config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS);
  });

  it("runs as the image's non-root user on a read-only root filesystem, with no privilege", () => {
    const pod = deployment.spec?.template.spec;
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(pod?.securityContext?.runAsUser).toBe(IMAGE_UIDS[dockerImage().user]);
    expect(pod?.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('keeps a reviewed sizing that agrees with the benchmark result it cites', () => {
    const { sizing, cited } = reviewedSizing();
    expect(sizing.reviewed).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(sizing.source.command).toMatch(/^npm run bench\b/);
    expect(sizing.peakRssMiB).toBeCloseTo(cited.peakRssMiB, 1);
    expect(sizing.signUpCores.length).toBeGreaterThan(0);
    // The file keeps cores to 3 decimals.
    const rounded = (cores: number[]) => cores.map((c) => Number(c.toFixed(3)));
    expect(sizing.signUpCores).toEqual(rounded(cited.signUpCores));
    expect(sizing.orderCores).toEqual(rounded(cited.orderCores));
  });

  // Against the reviewed sizing, not the newest result: a benchmark on a slower or busier host
  // must not fail CI; its report says whether the sizing still holds, and a person re-sizes.
  it('sizes memory and CPU from the reviewed sizing (deploy/sizing.json)', () => {
    const { sizing } = reviewedSizing();
    const { requests = {}, limits = {} } = container.resources ?? {};
    // The heap the benchmark ran with is the image's; a NODE_OPTIONS set here changes only that.
    const imageHeap = heapCapMiB(dockerImage().nodeOptions);
    const ownOptions = container.env?.find((v) => v.name === 'NODE_OPTIONS')?.value;
    const heap = ownOptions === undefined ? imageHeap : heapCapMiB(ownOptions);
    const needMiB = (sizing.peakRssMiB - imageHeap + heap) * MARGINS.memory;
    const memoryLimit = quantity(limits.memory, 'MiB');
    expect(memoryLimit).toBeGreaterThanOrEqual(Math.ceil(needMiB));
    expect(quantity(requests.memory, 'MiB')).toBe(memoryLimit);
    // The request: one replica at full speed on sign-ups; the limit: above the heaviest run.
    const request = quantity(requests.cpu, 'cores');
    const signUps = median(sizing.signUpCores);
    expect(request).toBeGreaterThanOrEqual(MARGINS.requestLow * signUps);
    expect(request).toBeLessThanOrEqual(MARGINS.requestHigh * signUps);
    const heaviest = Math.max(...sizing.signUpCores, ...sizing.orderCores);
    expect(quantity(limits.cpu, 'cores')).toBeGreaterThanOrEqual(MARGINS.cpuLimit * heaviest);
  });

  it("holds a window of records in flight that fits the pod's heap", () => {
    const ownOptions = container.env?.find((v) => v.name === 'NODE_OPTIONS')?.value;
    const heapMiB = heapCapMiB(ownOptions ?? dockerImage().nodeOptions);
    expect(windowHeapWarning(config.consumer.maxInFlight, heapMiB * 2 ** 20)).toBeUndefined();
  });

  it('selects its own pods everywhere: Deployment, Service, PDB and topology spread', () => {
    const labels = deployment.spec?.template.metadata?.labels ?? {};
    const selectors = [
      deployment.spec?.selector.matchLabels,
      service(objects, 'mailbridge-metrics').spec?.selector,
      only<IPodDisruptionBudget & K8sObject>(objects, 'PodDisruptionBudget').spec?.selector
        ?.matchLabels,
      ...(deployment.spec?.template.spec?.topologySpreadConstraints ?? []).map(
        (c) => c.labelSelector?.matchLabels,
      ),
    ];
    for (const selector of selectors) {
      expect(selector && Object.keys(selector).length).toBeGreaterThan(0);
      expect(labels).toMatchObject(selector ?? {});
    }
    const spread = deployment.spec?.template.spec?.topologySpreadConstraints ?? [];
    expect(spread.map((c) => c.topologyKey).sort()).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);
  });

  it('scales on the consumer group lag with KEDA, within the PDB and the partitions', () => {
    const scaled = only<IScaledObject & K8sObject>(objects, 'ScaledObject');
    const pdb = only<IPodDisruptionBudget & K8sObject>(objects, 'PodDisruptionBudget');
    expect(scaled.spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata?.name,
    });
    // KEDA owns the count: a `replicas` here would reset it on every apply.
    expect(deployment.spec?.replicas).toBeUndefined();
    expect(scaled.spec.minReplicaCount).toBeGreaterThan(Number(pdb.spec?.maxUnavailable));
    expect(scaled.spec.maxReplicaCount).toBeLessThanOrEqual(config.kafka.topicPartitions);

    expect(scaled.spec.triggers).toHaveLength(1);
    const [trigger] = scaled.spec.triggers;
    expect(trigger.type).toBe('kafka');
    const metadata = trigger.metadata ?? {};
    expect(Object.keys(metadata).filter((key) => !KAFKA_TRIGGER_METADATA.has(key))).toEqual([]);
    // The broker list and group KEDA reads are the container's own.
    const env = new Map((container.env ?? []).map((v) => [v.name, v]));
    expect(metadata.bootstrapServersFromEnv).toBe('KAFKA_BROKERS');
    expect(metadata.consumerGroupFromEnv).toBe('KAFKA_GROUP_ID');
    expect(env.get('KAFKA_BROKERS')?.value).toBe(config.kafka.brokers.join(','));
    expect(env.get('KAFKA_GROUP_ID')?.value).toBe(config.kafka.groupId);
    expect(Number(metadata.lagThreshold)).toBeGreaterThan(0);
    expect(metadata.offsetResetPolicy).toBe(config.consumer.startFrom);
    // KEDA reaches the brokers as mailbridge does.
    expect(metadata.tls ?? 'disable').toBe(config.kafka.ssl ? 'enable' : 'disable');
    expect(metadata.sasl).toBe(config.kafka.sasl && KEDA_SASL[config.kafka.sasl.mechanism]);
  });

  it('authenticates KEDA with the credentials mailbridge uses', () => {
    const scaled = only<IScaledObject & K8sObject>(objects, 'ScaledObject');
    const auths = objects.filter((o) => o.kind === 'TriggerAuthentication');
    expect(auths).toHaveLength(config.kafka.sasl ? 1 : 0);
    const auth = auths[0] as (ITriggerAuthentication & K8sObject) | undefined;
    const env = new Map((container.env ?? []).map((v) => [v.name, v.value]));
    const password = auth?.spec.secretTargetRef?.find((p) => p.parameter === 'password');
    const keys = deployment.spec?.template.spec?.volumes?.find((v) => v.name === 'keys')?.secret;
    const passwordFile = env.get('KAFKA_SASL_PASSWORD_FILE');
    const parameters = [...(auth?.spec.env ?? []), ...(auth?.spec.secretTargetRef ?? [])];
    expect({
      authenticationRef: scaled.spec.triggers[0].authenticationRef?.name,
      // The password is the file mailbridge reads: same Secret, same key.
      password: password && `${password.name}/${password.key}`,
      unknownParameters: parameters
        .map((p) => p.parameter)
        .filter((p) => !KAFKA_AUTH_PARAMETERS.has(p)),
      variablesNotInTheContainer: (auth?.spec.env ?? [])
        .map((e) => e.name)
        .filter((n) => !env.has(n)),
    }).toEqual({
      authenticationRef: config.kafka.sasl && 'mailbridge-kafka',
      password: config.kafka.sasl && `${keys?.secretName}/${basename(passwordFile ?? '')}`,
      unknownParameters: [],
      variablesNotInTheContainer: [],
    });
    expect(auth?.metadata?.name).toBe(config.kafka.sasl && 'mailbridge-kafka');
  });
});

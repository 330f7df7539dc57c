import type { ConsumerConfig } from '@slipstream/jetstream';
import { askNumber, validates } from './ask-number.js';
import { deliverPolicy, filterSubjects, nanosOrOff } from './consumer-config-options.js';
import { parseInteger } from './units.js';

/**
 * Asks, at a terminal, for each setting of a new consumer that no flag gave, in the order and
 * with the defaults of `nats consumer add`: an empty delivery target makes a pull consumer
 * (unless --pull said so already), and only push consumers are asked about push settings.
 */
export async function promptConsumerConfig(
  name: string | undefined,
  given: Partial<ConsumerConfig>,
  pull: boolean,
): Promise<ConsumerConfig> {
  const { confirm, input, select } = await import('@inquirer/prompts');
  const config = { ...given } as ConsumerConfig;
  config.durable_name =
    name ?? (await input({ message: 'Consumer name', required: true, validate: durableName }));
  if (!pull && config.deliver_subject === undefined) {
    const target = await input({ message: 'Delivery target (empty for Pull Consumers)' });
    if (target) config.deliver_subject = target;
  }
  const push = config.deliver_subject !== undefined;
  if (push && config.deliver_group === undefined) {
    const group = await input({ message: 'Delivery Queue Group' });
    if (group) config.deliver_group = group;
  }
  if (config.deliver_policy === undefined) {
    const start = await input({
      message: 'Start policy (all, new, last, subject, 1h, msg sequence)',
      default: 'all',
      validate: (text) => validates(() => deliverPolicy(text)),
    });
    Object.assign(config, deliverPolicy(start));
  }
  config.ack_policy ??= await select({
    message: 'Acknowledgment policy',
    choices: (['explicit', 'all', 'none'] as const).map((value) => ({ name: value, value })),
    default: push ? 'none' : 'explicit',
  });
  config.replay_policy ??= await select({
    message: 'Replay policy',
    choices: (['instant', 'original'] as const).map((value) => ({ name: value, value })),
  });
  if (config.filter_subject === undefined && config.filter_subjects === undefined) {
    Object.assign(
      config,
      filterSubjects(await input({ message: 'Filter Stream by subjects (blank for all)' })),
    );
  }
  if (config.ack_policy !== 'none') {
    config.max_deliver ??= await askNumber('Maximum Allowed Deliveries', '-1', (t) =>
      parseInteger(t, -1),
    );
    config.max_ack_pending ??= await askNumber('Maximum Acknowledgments Pending', '0', (t) =>
      parseInteger(t, -1),
    );
  }
  if (push) {
    config.idle_heartbeat ??= await askNumber('Idle Heartbeat', '0s', nanosOrOff);
    config.flow_control ??= await confirm({
      message: 'Enable Flow Control, ie --flow-control',
      default: false,
    });
  }
  config.headers_only ??= await confirm({
    message: 'Deliver headers only without bodies',
    default: false,
  });
  return config;
}

/** A durable name is a subject token: no dots or wildcards (the nats CLI refuses them too). */
function durableName(text: string): true | string {
  return /[.*>\s]/.test(text) ? "a consumer name cannot hold '.', '*', '>' or spaces" : true;
}

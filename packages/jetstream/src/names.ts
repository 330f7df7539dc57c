import { consumerNameProblem, streamNameProblem } from '@slipstream/jsapi';
import { InvalidNameError } from './errors.js';

/**
 * A name becomes a subject token of the API call: one with `.` or a wildcard would address
 * another call or none (nats-server 2.9.10 then never answers), so it is refused here.
 */
export function checkStreamName(name: string): string {
  const problem = streamNameProblem(name);
  if (problem) throw new InvalidNameError(problem);
  return name;
}

export function checkConsumerName(name: string): string {
  const problem = consumerNameProblem(name);
  if (problem) throw new InvalidNameError(problem);
  return name;
}

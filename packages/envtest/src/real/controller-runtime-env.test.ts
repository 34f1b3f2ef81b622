import { describe, expect, it } from 'vitest';
import { attachedOutputFromEnv, parseGoDuration, timeoutsFromEnv } from './controller-runtime-env.js';
import { TestEnvironmentOptionsError } from './errors.js';

describe('controller-runtime envtest variables', () => {
  it.each([
    ['90s', 90_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5s', 1_500],
    ['2h', 7_200_000],
  ])('parses the Go duration %s', (text, ms) => {
    expect(parseGoDuration(text, 'X')).toBe(ms);
  });

  it.each(['', '90', 's', '1m 30s', '-5s', '10 seconds'])('rejects %j naming the variable', (text) => {
    expect(() => parseGoDuration(text, 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT')).toThrow(TestEnvironmentOptionsError);
    expect(() => parseGoDuration(text, 'KUBEBUILDER_CONTROLPLANE_START_TIMEOUT')).toThrow(/^KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=/);
  });

  it('reads the start and stop timeouts when set', () => {
    expect(timeoutsFromEnv({})).toEqual({});
    expect(timeoutsFromEnv({ KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: '2m', KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT: '3s' })).toEqual({
      startTimeoutMs: 120_000,
      stopGraceMs: 3_000,
    });
  });

  it('attaches control-plane output only when asked', () => {
    expect(attachedOutputFromEnv({})).toBeUndefined();
    expect(attachedOutputFromEnv({ KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT: 'false' })).toBeUndefined();
    expect(attachedOutputFromEnv({ KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT: 'true' })).toBeTypeOf('function');
  });
});

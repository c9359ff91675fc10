import { ValidationError } from '../../../../domain/errors';
import { UpstreamAddressCheck } from '../../../ports/upstream-address-check.port';
import { UpstreamRefusal } from '../../../ports/upstream-refusal';

const HTTP_URL = /^https?:\/\//i;

/**
 * A `data.url` whose host the upstream connection would refuse, refused now
 * with the refusal's general message (never which address the name has). A
 * URL that is no http(s) URL is left to the policy, which names it.
 */
export async function refuseAddress(check: UpstreamAddressCheck, url: unknown): Promise<void> {
  if (typeof url !== 'string' || !HTTP_URL.test(url) || !URL.canParse(url)) return;
  try {
    await check.check(url);
  } catch (error) {
    if (error instanceof UpstreamRefusal) throw ValidationError.single('data.url', error.message);
    throw error;
  }
}

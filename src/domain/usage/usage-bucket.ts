/** The sizes usage is kept in; starts are UTC-aligned. */
export const BUCKET_SIZES = ['minute', 'hour', 'day'] as const;

export type BucketSize = (typeof BUCKET_SIZES)[number];

export const BUCKET_MS: Record<BucketSize, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The start of the bucket holding `at` (UTC has no leap seconds in Date arithmetic, so a day is 86,400,000 ms). */
export function bucketStart(at: Date | number, size: BucketSize): Date {
  const ms = typeof at === 'number' ? at : at.getTime();
  return new Date(Math.floor(ms / BUCKET_MS[size]) * BUCKET_MS[size]);
}

/** The first bucket start at or after `at`. */
export function bucketCeil(at: Date, size: BucketSize): Date {
  return new Date(Math.ceil(at.getTime() / BUCKET_MS[size]) * BUCKET_MS[size]);
}

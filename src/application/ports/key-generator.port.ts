export interface KeyGenerator {
  /** A fresh raw key from a CSPRNG, in the format of spec 2.2. */
  generate(): string;
}

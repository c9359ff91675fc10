/** Digests of content the application must recognise again, e.g. an upstream tool's definition. */
export interface ContentDigest {
  /** SHA-256 of the text's UTF-8 bytes, lower-case hex. */
  sha256(text: string): string;
}

// The audit chain and tool pins hash the same canonical form; it lives in the domain.
export { canonicalJson, wellFormed } from '../../domain/canonical-json';

import { Router } from 'express';
import { clientMetadataDocument } from '../../oauth-client/client-metadata-document';

/** Where keygate serves its OAuth Client ID Metadata Document, under its public URL. */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/**
 * GET /oauth/client-metadata.json: keygate's Client ID Metadata Document
 * (draft-ietf-oauth-client-id-metadata-document, the MCP authorization
 * spec's preferred registration): an upstream authorization server that
 * supports it fetches this to learn who keygate is, so keygate needs no
 * registration there. Its URL is its client id, so it is served only when
 * that URL is https (PUBLIC_URL); otherwise the route is absent (404).
 */
export function clientMetadataRouter(documentUrl: string | null, redirectUri: string | null, clientName: string): Router {
  const router = Router();
  if (documentUrl === null || redirectUri === null) return router;
  const body = clientMetadataDocument(documentUrl, [redirectUri], clientName);
  router.get(CLIENT_METADATA_PATH, (_req, res) => {
    // Authorization servers may cache it; a day keeps a changed redirect URI from lingering long.
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(body);
  });
  return router;
}

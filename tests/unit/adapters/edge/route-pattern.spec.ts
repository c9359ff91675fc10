import { IncomingMessage } from 'node:http';
import express from 'express';
import { trackRoutePatterns } from '../../../../src/adapters/edge/route-pattern';

/**
 * trackRoutePatterns puts accessors for baseUrl and route on the app's request
 * prototype. That is safe only while Express keeps these as plain values it
 * assigns to each request; if it ever defines them itself, the accessors
 * would hide its own, and this fails before anything is labelled wrongly.
 */
describe("trackRoutePatterns and Express's request prototype", () => {
  const OVERRIDDEN = ['baseUrl', 'route'];

  it('overrides nothing Express or Node define on a request', () => {
    for (const name of OVERRIDDEN) {
      expect(name in express.request).toBe(false);
      expect(name in IncomingMessage.prototype).toBe(false);
    }
  });

  it("puts an accessor for each on this app's request prototype only", () => {
    const app = express();
    trackRoutePatterns(app);
    for (const name of OVERRIDDEN) {
      const descriptor = Object.getOwnPropertyDescriptor(app.request, name);
      expect(typeof descriptor?.get).toBe('function');
      expect(typeof descriptor?.set).toBe('function');
      expect(name in express().request).toBe(false);
    }
  });

  it("keeps the app's request prototype on Express's, which is what Express gives each request", () => {
    const app = express();
    expect(Object.getPrototypeOf(app.request)).toBe(express.request);
  });
});

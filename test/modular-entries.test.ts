import { describe, expect, it } from 'vitest';
import { ResilientSocket as BrowserResilientSocket } from '../src/index.js';
import * as browser from '../src/modular.js';
import * as node from '../src/modular-node.js';
import { ResilientSocket as NodeResilientSocket } from '../src/node.js';

describe('the entries', () => {
  it('resilient-socket/modular exports the same names in its browser and Node builds', () => {
    const nodeExports: Record<string, unknown> = { ...node };
    const browserExports: Record<string, unknown> = { ...browser };
    expect(Object.keys(nodeExports).sort()).toEqual(Object.keys(browserExports).sort());
    for (const [name, value] of Object.entries(browserExports)) {
      if (name !== 'BaseSocket') expect(nodeExports[name], name).toBe(value);
    }
  });

  it('the Node classes are the browser ones with the ws transport, under the same names', () => {
    expect(Object.getPrototypeOf(node.BaseSocket)).toBe(browser.BaseSocket);
    expect(node.BaseSocket.name).toBe('BaseSocket');
    expect(Object.getPrototypeOf(NodeResilientSocket)).toBe(BrowserResilientSocket);
    expect(NodeResilientSocket.name).toBe('ResilientSocket');
  });
});

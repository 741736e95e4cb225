import { describe, expect, it } from 'vitest';
import { ResilientSocket as BrowserResilientSocket } from '../src/index.js';
import * as browser from '../src/modular.js';
import * as node from '../src/modular-node.js';
import { ResilientSocket as NodeResilientSocket } from '../src/node.js';

describe('the entries', () => {
  it('resilient-socket/modular exports the same names in its browser and Node builds', () => {
    expect(Object.keys(node).sort()).toEqual(Object.keys(browser).sort());
    for (const name of Object.keys(browser)) {
      if (name === 'BaseSocket') continue;
      expect(node[name as keyof typeof node], name).toBe(browser[name as keyof typeof browser]);
    }
  });

  it('the Node classes are the browser ones with the ws transport, under the same names', () => {
    expect(Object.getPrototypeOf(node.BaseSocket)).toBe(browser.BaseSocket);
    expect(node.BaseSocket.name).toBe('BaseSocket');
    expect(Object.getPrototypeOf(NodeResilientSocket)).toBe(BrowserResilientSocket);
    expect(NodeResilientSocket.name).toBe('ResilientSocket');
  });
});

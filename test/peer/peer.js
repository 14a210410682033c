#!/usr/bin/env node
// peer.js answers leash simulate cases with @cloud-copilot/iam-simulate, the
// reference engine of leash's differential tests. It runs as its own process
// (the engine is AGPL-3.0; leash only talks to it over a pipe).
//
// Input: JSON Lines on stdin, one simulate.Case object per line (the JSON
// contract of `leash simulate`). Output: one JSON line per input line, in
// input order:
//
//   {"decision": "Allowed"|"ExplicitDeny"|"ImplicitDeny"|"Error",
//    "ignoredContextKeys": [...], "errors": ...}
//
// Like leash, peer.js adds the keys AWS derives from the caller
// (aws:PrincipalArn, aws:PrincipalAccount, aws:PrincipalType, aws:username)
// unless the case gives them, and takes the resource's account from
// resourceAccount, else the resource ARN, else the principal ARN.
//
// Lines are evaluated with bounded concurrency; answers are still written in
// input order. A line that is not a case is answered with an Error.
'use strict';

const readline = require('node:readline');
const { runSimulation } = require('@cloud-copilot/iam-simulate');

// How many cases may be in flight at once. The engine is mostly synchronous
// CPU work; a small window lets its asynchronous data lookups overlap.
const MAX_IN_FLIGHT = Number(process.env.PEER_CONCURRENCY || 32);

const decisions = {
  Allowed: 'Allowed',
  ExplicitlyDenied: 'ExplicitDeny',
  ImplicitlyDenied: 'ImplicitDeny',
};

// accountOf returns the account field of an ARN, or '' when s is no ARN.
function accountOf(s) {
  if (typeof s !== 'string' || !s.startsWith('arn:')) {
    return '';
  }
  const parts = s.split(':');
  return parts.length >= 6 ? parts[4] : '';
}

// contextValue turns a case's context value (string, number, boolean or an
// array of them) into the peer's string | string[].
function contextValue(v) {
  if (Array.isArray(v)) {
    return v.map((e) => String(e));
  }
  return String(v);
}

// principalKeys returns the keys AWS puts in every signed request's context
// from the caller: aws:PrincipalArn (a role session's is its role's ARN),
// aws:PrincipalAccount, aws:PrincipalType and, for IAM users, aws:username.
// leash fills them the same way; the peer expects them in the request.
function principalKeys(principal) {
  if (typeof principal !== 'string' || !principal.startsWith('arn:')) {
    return {};
  }
  const parts = principal.split(':');
  if (parts.length < 6) {
    return {};
  }
  const [, partition, service, , account] = parts;
  const resource = parts.slice(5).join(':');
  const keys = { 'aws:PrincipalAccount': account };
  if (service === 'iam' && resource === 'root') {
    keys['aws:PrincipalArn'] = principal;
    keys['aws:PrincipalType'] = 'Account';
  } else if (service === 'iam' && resource.startsWith('user/')) {
    keys['aws:PrincipalArn'] = principal;
    keys['aws:PrincipalType'] = 'User';
    keys['aws:username'] = resource.slice(resource.lastIndexOf('/') + 1);
  } else if (service === 'sts' && resource.startsWith('assumed-role/')) {
    const role = resource.split('/')[1];
    keys['aws:PrincipalArn'] = `arn:${partition}:iam::${account}:role/${role}`;
    keys['aws:PrincipalType'] = 'AssumedRole';
  } else if (service === 'sts' && resource.startsWith('federated-user/')) {
    keys['aws:PrincipalArn'] = principal;
    keys['aws:PrincipalType'] = 'FederatedUser';
  } else {
    return {};
  }
  return keys;
}

function named(list, prefix) {
  return (list || []).map((n, i) => ({
    name: n.name || `${prefix}-${i + 1}`,
    policy: n.document,
  }));
}

// levels converts [[{name, document}]] (root first) to the peer's
// [{orgIdentifier, policies}].
function levels(list, prefix) {
  return (list || []).map((level, li) => ({
    orgIdentifier: li === 0 ? 'r-root' : `ou-level-${li}`,
    policies: named(level, `${prefix}-${li}`),
  }));
}

// toSimulation converts a simulate.Case to the peer's Simulation. The
// resource's account defaults as leash's does: resourceAccount, else the
// account in the resource ARN, else the principal's account.
function toSimulation(c) {
  const resource = c.resource || '*';
  const accountId = c.resourceAccount || accountOf(resource) || accountOf(c.principal);
  const contextVariables = {};
  const given = new Set();
  for (const [k, v] of Object.entries(c.context || {})) {
    contextVariables[k] = contextValue(v);
    given.add(k.toLowerCase());
  }
  for (const [k, v] of Object.entries(principalKeys(c.principal))) {
    if (!given.has(k.toLowerCase())) {
      contextVariables[k] = v;
    }
  }
  const sim = {
    request: {
      principal: c.principal || '',
      action: c.action || '',
      resource: { resource, accountId },
      contextVariables,
    },
    identityPolicies: named(c.identityPolicies, 'identity'),
    serviceControlPolicies: levels(c.scps, 'scps'),
    resourceControlPolicies: levels(c.rcps, 'rcps'),
  };
  if (c.resourcePolicy) {
    sim.resourcePolicy = c.resourcePolicy;
  }
  if (c.permissionsBoundary) {
    sim.permissionBoundaryPolicies = [{ name: 'permissions-boundary', policy: c.permissionsBoundary }];
  }
  if (c.sessionPolicy) {
    sim.sessionPolicy = c.sessionPolicy;
  }
  return sim;
}

function ignoredKeys(result) {
  const keys = new Set();
  if (result.result && result.result.ignoredContextKeys) {
    result.result.ignoredContextKeys.forEach((k) => keys.add(k));
  }
  for (const r of result.results || []) {
    (r.ignoredContextKeys || []).forEach((k) => keys.add(k));
  }
  return [...keys].sort();
}

async function answer(line) {
  let c;
  try {
    c = JSON.parse(line);
  } catch (e) {
    return { decision: 'Error', ignoredContextKeys: [], errors: { message: `not JSON: ${e.message}` } };
  }
  try {
    const result = await runSimulation(toSimulation(c), { simulationMode: 'Strict' });
    if (result.resultType === 'error') {
      return { decision: 'Error', ignoredContextKeys: [], errors: result.errors };
    }
    const decision = decisions[result.overallResult];
    if (!decision) {
      return { decision: 'Error', ignoredContextKeys: [], errors: { message: `unknown result ${result.overallResult}` } };
    }
    return { decision, ignoredContextKeys: ignoredKeys(result), errors: null };
  } catch (e) {
    return { decision: 'Error', ignoredContextKeys: [], errors: { message: `threw: ${e && e.message}` } };
  }
}

function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const queue = []; // [index, line] read but not started
  const done = new Map(); // index -> answer line, waiting for earlier ones
  let read = 0; // lines read
  let written = 0; // index of the next answer to write
  let inFlight = 0;

  const flush = () => {
    let out = '';
    while (done.has(written)) {
      out += done.get(written) + '\n';
      done.delete(written);
      written++;
    }
    if (out) {
      process.stdout.write(out);
    }
  };

  const pump = () => {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const [i, line] = queue.shift();
      inFlight++;
      answer(line).then((a) => {
        done.set(i, JSON.stringify(a));
        inFlight--;
        flush();
        pump();
      });
    }
    // Read more only while the backlog is small, so memory stays bounded.
    if (queue.length < 4 * MAX_IN_FLIGHT) {
      rl.resume();
    }
  };

  rl.on('line', (line) => {
    queue.push([read++, line]);
    if (queue.length >= 4 * MAX_IN_FLIGHT) {
      rl.pause();
    }
    pump();
  });
}

// Run as a program, answer stdin; required (bench/batch_peer.js), lend the
// conversion so that both agree on what a case means to the peer.
if (require.main === module) {
  main();
} else {
  module.exports = { toSimulation, decisions };
}

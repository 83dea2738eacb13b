// Support for the browser tests: start and stop a real sinewd on loopback ports chosen free, a small TCP
// client of the protocol (varint-delimited protobuf, schema parsed from proto/sinew.proto) to set up
// worlds and read their state beside the page, and headless Chromium through playwright-core.
//
// Environment (CTest sets it): SINEWD (the server), SINEW_WEB_DIST (the dashboard bundle),
// SINEW_ARTIFACTS (where screenshots go), SINEW_CHROMIUM (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
// The packages come from the dashboard's node_modules (npm ci from its package-lock.json).
const require = createRequire(path.join(root, 'clients', 'web', 'package.json'));
const protobuf = require('protobufjs');
const Long = require('long');
export const { chromium } = require('playwright-core');

protobuf.util.Long = Long;
protobuf.configure();
const schema = protobuf.loadSync(path.join(root, 'proto', 'sinew.proto'));
const ClientMessage = schema.lookupType('sinew.v1.ClientMessage');
const ServerMessage = schema.lookupType('sinew.v1.ServerMessage');
export const pb = {
	Role: schema.lookupEnum('sinew.v1.Role').values,
	TimeMode: schema.lookupEnum('sinew.v1.TimeMode').values,
	Include: schema.lookupEnum('sinew.v1.Include').values,
	LinkJointType: schema.lookupEnum('sinew.v1.LinkJointType').values,
};

export const SINEWD = process.env.SINEWD ?? path.join(root, 'build', 'release', 'server', 'sinewd');
export const WEB_DIST = process.env.SINEW_WEB_DIST ?? path.join(root, 'build', 'release', 'clients', 'web', 'dist');
export const ARTIFACTS = process.env.SINEW_ARTIFACTS ?? path.join(root, 'build', 'release', 'artifacts');
export const CHROMIUM = process.env.SINEW_CHROMIUM ?? '/usr/bin/chromium';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll `probe` (async) until it returns a truthy value or `timeoutMs` passes; returns the value or throws.
export async function waitFor(what, probe, timeoutMs = 10000, everyMs = 50) {
	const deadline = Date.now() + timeoutMs;
	let last;
	for (;;) {
		last = await probe();
		if (last) {
			return last;
		}
		if (Date.now() > deadline) {
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
		}
		await sleep(everyMs);
	}
}

// ---- sinewd -------------------------------------------------------------------------------------------

export class Server {
	// ports: { tcp, ws } to reuse (a restart), else 0 (free ports); flags: more sinewd arguments.
	static async start({ tcp = 0, ws = 0, flags = [], demo = true } = {}) {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sinew-web-'));
		const portFile = path.join(dir, 'ports');
		const logPath = path.join(dir, 'sinewd.log');
		const log = fs.openSync(logPath, 'w');
		const args = ['--host', '127.0.0.1', '--tcp-port', String(tcp), '--ws-port', String(ws), '--port-file', portFile,
			'--web-root', WEB_DIST, ...(demo ? [] : ['--no-demo']), ...flags];
		const proc = spawn(SINEWD, args, { stdio: ['ignore', log, log] });
		const s = new Server();
		Object.assign(s, { dir, logPath, proc, exited: null });
		proc.on('exit', (code, signal) => {
			s.exited = { code, signal };
		});
		await waitFor('sinewd to write its port file', () => {
			if (s.exited) {
				throw new Error(`sinewd exited (${JSON.stringify(s.exited)}): ${s.log()}`);
			}
			try {
				const ports = Object.fromEntries(fs.readFileSync(portFile, 'utf8').trim().split('\n').map((l) => l.split('=')));
				if (ports.tcp && ports.ws) {
					s.tcp = Number(ports.tcp);
					s.ws = Number(ports.ws);
					return true;
				}
			} catch {
				// not yet written
			}
			return false;
		}, 15000);
		fs.closeSync(log);
		return s;
	}

	get url() {
		return `http://127.0.0.1:${this.ws}/`;
	}

	log() {
		try {
			return fs.readFileSync(this.logPath, 'utf8');
		} catch {
			return '';
		}
	}

	// SIGTERM, wait for the exit (SIGKILL after 10 s); resolves to the exit code.
	async stop() {
		if (!this.exited) {
			this.proc.kill('SIGTERM');
			try {
				await waitFor('sinewd to exit', () => this.exited, 10000);
			} catch {
				this.proc.kill('SIGKILL');
				await waitFor('sinewd to die', () => this.exited, 5000);
			}
		}
		return this.exited.code;
	}
}

// ---- a TCP client of the protocol ---------------------------------------------------------------------

export class TcpClient {
	static connect(port, name = 'browser-test') {
		return new Promise((resolve, reject) => {
			const c = new TcpClient();
			c.socket = net.connect({ host: '127.0.0.1', port }, async () => {
				try {
					const hs = await c.send({ handshake: { protocolVersion: 1, clientName: name, role: pb.Role.ROLE_CONTROLLER } }, 'handshake');
					if (hs.status.code !== 0) {
						throw new Error(`handshake refused: ${hs.status.message}`);
					}
					resolve(c);
				} catch (e) {
					reject(e);
				}
			});
			c.socket.on('error', reject);
			c.socket.on('data', (d) => c.received(d));
		});
	}

	constructor() {
		this.buf = Buffer.alloc(0);
		this.nextId = 1;
		this.pending = new Map();
	}

	received(data) {
		this.buf = Buffer.concat([this.buf, data]);
		for (;;) {
			let len = 0;
			let shift = 0;
			let i = 0;
			for (;; ++i) {
				if (i >= this.buf.length) {
					return;
				}
				len += (this.buf[i] & 0x7f) * 2 ** shift;
				shift += 7;
				if (!(this.buf[i] & 0x80)) {
					break;
				}
			}
			if (this.buf.length < i + 1 + len) {
				return;
			}
			const msg = ServerMessage.toObject(ServerMessage.decode(this.buf.subarray(i + 1, i + 1 + len)), { longs: String, enums: Number, defaults: true, oneofs: true });
			this.buf = this.buf.subarray(i + 1 + len);
			if (msg.message === 'handshake') {
				this.pending.get('handshake')?.(msg.handshake);
			} else if (msg.message === 'reply') {
				this.pending.get(msg.reply.requestId)?.(msg.reply);
			}
		}
	}

	send(command, key) {
		const id = key ?? String(this.nextId++);
		const bytes = ClientMessage.encode(ClientMessage.fromObject({ requestId: key ? '0' : id, ...command })).finish();
		const prefix = [];
		let n = bytes.length;
		do {
			prefix.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
			n >>>= 7;
		} while (n > 0);
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no reply to ${Object.keys(command)[0]} in 20 s`)), 20000);
			this.pending.set(id, (reply) => {
				clearTimeout(timer);
				this.pending.delete(id);
				resolve(reply);
			});
			this.socket.write(Buffer.concat([Buffer.from(prefix), bytes]));
		});
	}

	// A command that must succeed: its Reply.
	async ok(command) {
		const reply = await this.send(command);
		if (reply.status.code !== 0) {
			throw new Error(`${Object.keys(command)[0]} refused: ${reply.status.code} ${reply.status.message}`);
		}
		return reply;
	}

	async state(worldId, include = 0) {
		return (await this.ok({ getState: { worldId, include } })).state;
	}

	close() {
		this.socket.destroy();
	}
}

// ---- the browser --------------------------------------------------------------------------------------

// Debian's chromium, headless, with a fresh profile (playwright makes one per launch and removes it).
export async function launchBrowser() {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (scripts/install-deps.sh)`);
	}
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		timeout: 30000,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader'],
	});
}

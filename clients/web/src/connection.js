// The dashboard's session with sinewd over WebSocket (the page's own host and port, path /, subprotocol
// sinew.v1): handshake, requests matched to replies by request id, state frames and events to listeners,
// and reconnection with backoff when the server goes away.
import { PROTOCOL_VERSION, Role, SinewError, decodeServer, encodeClient } from './protocol.js';

const SUBPROTOCOL = 'sinew.v1';
// Reconnection: the first retry after 250 ms, doubling to at most 4 s (a restarted server is found within
// 4 s of listening, without hammering one that is down).
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 4000;
// A reply that does not come in this time fails its promise (the server answers every command; a step of
// many steps is the slowest).
const REPLY_TIMEOUT_MS = 30000;

export class Connection {
	// url: ws://host:port/; options: { name, token }; listeners: { onStatus(status), onOpen(handshake),
	// onState(frame), onEvent(event) }.
	constructor(url, options, listeners) {
		this.url = url;
		this.options = options;
		this.listeners = listeners;
		this.socket = null;
		this.pending = new Map();
		this.nextId = 1;
		this.attempt = 0;
		this.retryTimer = null;
		this.handshake = null;
		// 'connecting' | 'open' | 'down'
		this.status = { state: 'connecting', attempt: 0, retryAt: 0, reason: '' };
	}

	start() {
		this.connect();
	}

	setStatus(fields) {
		this.status = { ...this.status, ...fields };
		this.listeners.onStatus?.(this.status);
	}

	connect() {
		this.retryTimer = null;
		this.attempt += 1;
		// While down, the banner stays up through the attempts; it counts them.
		this.setStatus({ state: this.status.state === 'down' ? 'down' : 'connecting', attempt: this.attempt });
		let socket;
		try {
			socket = new WebSocket(this.url, SUBPROTOCOL);
		} catch (e) {
			this.lost(`cannot open ${this.url}: ${e.message}`);
			return;
		}
		socket.binaryType = 'arraybuffer';
		this.socket = socket;
		socket.onopen = () => {
			socket.send(encodeClient({
				requestId: '0',
				handshake: { protocolVersion: PROTOCOL_VERSION, clientName: this.options.name, token: this.options.token ?? '', role: Role.ROLE_CONTROLLER },
			}));
		};
		socket.onmessage = (e) => {
			if (socket !== this.socket) {
				return;
			}
			let msg;
			try {
				msg = decodeServer(e.data);
			} catch (err) {
				socket.close(4000, 'undecodable message');
				this.lost(`undecodable message from the server: ${err.message}`);
				return;
			}
			this.dispatch(msg);
		};
		socket.onclose = (e) => {
			if (socket === this.socket) {
				this.lost(this.closingReason || (e.reason ? `closed: ${e.reason}` : 'the server is unreachable'));
			}
		};
		socket.onerror = () => {
			// onclose follows and says what happened.
		};
	}

	dispatch(msg) {
		switch (msg.message) {
			case 'handshake': {
				const hs = msg.handshake;
				if (hs.status.code !== 0) {
					this.closingReason = `refused: ${hs.status.message}`;
					return;
				}
				this.handshake = hs;
				this.attempt = 0;
				this.closingReason = '';
				this.setStatus({ state: 'open', attempt: 0, reason: '' });
				this.listeners.onOpen?.(hs);
				return;
			}
			case 'reply': {
				const r = msg.reply;
				const p = this.pending.get(r.requestId);
				if (!p) {
					return;
				}
				this.pending.delete(r.requestId);
				clearTimeout(p.timer);
				if (r.status.code !== 0) {
					p.reject(new SinewError(r.status.code, r.status.message, p.command));
				} else {
					p.resolve(r);
				}
				return;
			}
			case 'state':
				this.listeners.onState?.(msg.state);
				return;
			case 'event':
				if (msg.event.event === 'closing') {
					this.closingReason = `the server closed the session: ${msg.event.closing.status.message}`;
				}
				this.listeners.onEvent?.(msg.event);
				return;
			default:
		}
	}

	lost(reason) {
		const socket = this.socket;
		this.socket = null;
		if (socket && socket.readyState <= 1) {
			socket.close();
		}
		for (const p of this.pending.values()) {
			clearTimeout(p.timer);
			p.reject(new Error(`connection lost (${reason})`));
		}
		this.pending.clear();
		const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.attempt, 10));
		this.setStatus({ state: 'down', reason, retryAt: Date.now() + delay });
		this.closingReason = '';
		this.retryTimer = setTimeout(() => this.connect(), delay);
	}

	// Send one command, e.g. request('step', { worldId, count: 1 }); resolves with the Reply object, or
	// rejects with a SinewError carrying the server's code and message.
	request(command, payload) {
		if (!this.socket || this.status.state !== 'open') {
			return Promise.reject(new Error('not connected'));
		}
		const id = String(this.nextId++);
		const bytes = encodeClient({ requestId: id, [command]: payload });
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				reject(new Error(`${command}: no reply within ${REPLY_TIMEOUT_MS / 1000} s`));
			}, REPLY_TIMEOUT_MS);
			this.pending.set(id, { resolve, reject, command, timer });
			this.socket.send(bytes);
		});
	}
}

// The wire schema, from proto/sinew.proto (parsed at build time, see build.mjs), and the conversions the
// dashboard uses. Messages become plain objects: 64-bit ids as decimal strings (exact; ids carry
// generations in their high bits), enums as numbers, absent fields as their defaults.
import protobuf from 'protobufjs/light.js';
import Long from 'long';
import schema from 'sinew:schema';

// protobufjs finds `long` by a dynamic require that a bundle cannot see: give it explicitly, so uint64
// values decode exactly instead of as rounded doubles.
protobuf.util.Long = Long;
protobuf.configure();

const root = protobuf.Root.fromJSON(schema);
const ClientMessage = root.lookupType('sinew.v1.ClientMessage');
const ServerMessage = root.lookupType('sinew.v1.ServerMessage');

function enumValues(name) {
	return root.lookupEnum(`sinew.v1.${name}`).values;
}

export const Role = enumValues('Role');
export const TimeMode = enumValues('TimeMode');
export const Include = enumValues('Include');
export const ErrorCode = enumValues('ErrorCode');
export const LinkJointType = enumValues('LinkJointType');
export const GeometryType = enumValues('GeometryType');
export const ShapeType = enumValues('ShapeType');
export const PROTOCOL_VERSION = enumValues('ProtocolVersion').PROTOCOL_VERSION_CURRENT;

const errorNames = Object.fromEntries(Object.entries(ErrorCode).map(([k, v]) => [v, k]));
const modeNames = { [TimeMode.TIME_PAUSED]: 'paused', [TimeMode.TIME_REALTIME]: 'real time', [TimeMode.TIME_FAST]: 'fast', [TimeMode.TIME_LOCKSTEP]: 'lockstep' };
const roleNames = { [Role.ROLE_OBSERVER]: 'observer', [Role.ROLE_CONTROLLER]: 'controller', [Role.ROLE_OWNER]: 'owner' };

export function errorName(code) {
	return errorNames[code] ?? `ERR_${code}`;
}
export function modeName(mode) {
	return modeNames[mode] ?? `mode ${mode}`;
}
export function roleName(role) {
	return roleNames[role] ?? 'none';
}

// A command the server refused: its ErrorCode number and name, and the server's line.
export class SinewError extends Error {
	constructor(code, message, command) {
		super(`${command}: ${errorName(code)}: ${message}`);
		this.code = code;
		this.codeName = errorName(code);
		this.serverMessage = message;
		this.command = command;
	}
}

// ClientMessage bytes from a plain object, e.g. { requestId: '3', step: { worldId: '1', count: 1 } }.
// (fromObject, not verify: verify refuses the decimal strings that fromObject reads exactly into uint64.)
export function encodeClient(object) {
	return ClientMessage.encode(ClientMessage.fromObject(object)).finish();
}

// A plain ServerMessage object from bytes; `message` names which of reply, state, event, handshake it is.
export function decodeServer(bytes) {
	const msg = ServerMessage.decode(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
	return ServerMessage.toObject(msg, { longs: String, enums: Number, bytes: Array, defaults: true, oneofs: true });
}

// How people read an id: ids pack {index + 1, generation} as high and low 32 bits (core/include/sinew/id.h,
// and the server's ids alike), so the high half numbers objects from 1.
export function shortId(id) {
	try {
		return String(BigInt(id) >> 32n);
	} catch {
		return String(id);
	}
}

// Handlers for the session and world commands: handshake, ping, create, destroy, list, clone, configure,
// join, leave, time mode, step, snapshot, restore, reset.
#include "command.h"
#include "convert.h"
#include "errors.h"
#include "frame.h"
#include "lockstep.h"
#include "log.h"
#include "persist.h"
#include "server.h"
#include "stream.h"
#include "wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- session ------------------------------------------------------------------------------------------

// Compare two tokens in time that depends on neither their contents nor their lengths: both are copied
// into zeroed buffers of the largest token's size and every byte of the two buffers is compared, so
// neither how much of a token was right nor how long the server's token is shows in the time taken. The
// lengths are compared too (a NUL inside a token never reaches here: the command gate refuses strings
// with NUL, wire.h).
static bool same_token(const char* expected, const char* given)
{
	enum
	{
		TOKEN_CAPACITY = sizeof(((sinew_v1_Handshake*)0)->token)
	};
	volatile unsigned char a[TOKEN_CAPACITY];
	volatile unsigned char b[TOKEN_CAPACITY];
	size_t na = strnlen(expected, TOKEN_CAPACITY);
	size_t nb = strnlen(given, TOKEN_CAPACITY);
	for (size_t i = 0; i < TOKEN_CAPACITY; ++i)
	{
		a[i] = i < na ? (unsigned char)expected[i] : 0u;
		b[i] = i < nb ? (unsigned char)given[i] : 0u;
	}
	unsigned diff = (unsigned)(na ^ nb);
	for (size_t i = 0; i < TOKEN_CAPACITY; ++i)
	{
		diff |= (unsigned)(a[i] ^ b[i]);
	}
	return diff == 0;
}

// Whether `given` is the world's controller key (SetControllerKey): the server keeps only the key's SHA-256,
// and compares every byte of the two digests, so the time taken tells nothing about the key.
static bool key_opens(const world_members* members, const char* given)
{
	uint8_t digest[WIRE_HASH_SIZE];
	if (!wire_sha256(given, strlen(given), digest))
	{
		return false;
	}
	unsigned diff = 0;
	for (size_t i = 0; i < WIRE_HASH_SIZE; ++i)
	{
		diff |= (unsigned)(digest[i] ^ members->key_hash[i]);
	}
	return diff == 0;
}

// A wrong controller key bars its client's address from controlling the world for this long, twice as long
// after the next, and so on up to an hour (members_demote): guessing a key takes that long per try.
#define KEY_BAR_NS 1000000000ull

// 0 if the session may control or adopt (`what`) the world as far as its key goes, else the refusal.
static int32_t check_key(command_ctx* ctx, const char* what)
{
	world_host* host = ctx->host;
	if (!host->members.has_key)
	{
		return 0;
	}
	const char* given = ctx->msg.command.join_world.controller_key;
	const uint64_t now = server_now_ns();
	const uint64_t until = members_barred_until(&host->members, ctx->session->address, now);
	if (until != 0)
	{
		return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE,
						"%s world %llu: this address may not control it for another %.0f s (a wrong controller key "
						"or a missed lockstep input)",
						what, (unsigned long long)host->id, (double)(until - now) * 1e-9 + 0.5);
	}
	if (key_opens(&host->members, given))
	{
		return 0;
	}
	if (given[0] == '\0')
	{
		return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE,
						"%s world %llu needs its controller key, which its owner set with SetControllerKey: give it "
						"in JoinWorld.controller_key",
						what, (unsigned long long)host->id);
	}
	const uint64_t bar = members_demote(&host->members, ctx->session->address, now, KEY_BAR_NS);
	return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE,
					"%s world %llu needs its controller key: the key given is wrong; this address may try again in "
					"%.0f s",
					what, (unsigned long long)host->id, (double)(bar - now) * 1e-9 + 0.5);
}

static void add_capability(sinew_v1_HandshakeReply* r, const char* name)
{
	if (r->capabilities_count < (pb_size_t)(sizeof(r->capabilities) / sizeof(r->capabilities[0])))
	{
		snprintf(r->capabilities[r->capabilities_count++], sizeof(r->capabilities[0]), "%s", name);
	}
}

int32_t handle_handshake(command_ctx* ctx)
{
	session* s = ctx->session;
	server* srv = ctx->srv;
	const sinew_v1_Handshake* h = &ctx->msg.command.handshake;
	sinew_v1_ServerMessage message = sinew_v1_ServerMessage_init_zero;
	message.which_message = sinew_v1_ServerMessage_handshake_tag;
	sinew_v1_HandshakeReply* r = &message.message.handshake;
	r->has_status = true;
	r->protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	snprintf(r->server_version, sizeof(r->server_version), "%s", SINEWD_VERSION);
	int32_t code = 0;
	if (h->protocol_version != sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT)
	{
		code = cmd_fail(ctx, SV_ERR_WRONG_VERSION, "this server speaks protocol version %d, the client asked for %u",
						(int)sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT, (unsigned)h->protocol_version);
	}
	else if (srv->config.token[0] != '\0' && !same_token(srv->config.token, h->token))
	{
		code = cmd_fail(ctx, SV_ERR_UNAUTHORISED, "%s",
						h->token[0] == '\0' ? "this server requires a token" : "the token is wrong");
	}
	else if (h->role != sinew_v1_Role_ROLE_UNSPECIFIED && h->role != sinew_v1_Role_ROLE_OBSERVER &&
			 h->role != sinew_v1_Role_ROLE_CONTROLLER && h->role != sinew_v1_Role_ROLE_OWNER)
	{
		code = cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "unknown role %d", (int)h->role);
	}
	r->status.code = (sinew_v1_ErrorCode)code;
	snprintf(r->status.message, sizeof(r->status.message), "%s", code == 0 ? "ok" : ctx->detail);
	if (code == 0)
	{
		s->state = SESSION_READY;
		s->role = h->role == sinew_v1_Role_ROLE_OBSERVER ? sinew_v1_Role_ROLE_OBSERVER : sinew_v1_Role_ROLE_CONTROLLER;
		snprintf(s->name, sizeof(s->name), "%s", h->client_name);
		r->session_id = s->id;
		r->role = s->role;
		add_capability(r, "lockstep");
		add_capability(r, "realtime");
		add_capability(r, "snapshots");
		add_capability(r, "streaming");
		add_capability(r, "articulations");
		add_capability(r, "shapes");
		add_capability(r, "contacts");
		add_capability(r, "assets");
		add_capability(r, "controller_key");
		if (srv->ws_port > 0)
		{
			add_capability(r, "websocket");
		}
		r->max_message_bytes = (uint32_t)srv->config.limits.max_message_bytes;
		r->max_requests_in_flight = (uint32_t)srv->config.limits.max_requests_in_flight;
		r->max_steps_per_request = (uint32_t)srv->config.limits.max_steps_per_request;
		r->max_asset_bytes = (uint64_t)srv->config.limits.max_asset_bytes;
		r->max_assets_per_load = (uint32_t)srv->config.limits.max_assets_per_load;
		r->max_asset_bytes_per_load = (uint64_t)srv->config.limits.max_asset_bytes_per_load;
		r->min_receive_bytes_per_s = (uint32_t)srv->config.limits.min_receive_bytes_per_s;
		char quoted[96];
		log_info("handshake", "session=%llu client=%s role=%s", (unsigned long long)s->id,
				 log_quote(quoted, sizeof(quoted), s->name),
				 s->role == sinew_v1_Role_ROLE_OBSERVER ? "observer" : "controller");
	}
	// The handshake is answered by a HandshakeReply, not a Reply.
	session_send(s, &message);
	metrics_count_command(&srv->metrics, ctx->index, code);
	ctx->deferred = true;
	if (s->in_flight > 0)
	{
		s->in_flight -= 1;
	}
	if (code != 0)
	{
		session_close(s, code, ctx->detail);
	}
	return code;
}

int32_t handle_ping(command_ctx* ctx)
{
	(void)ctx;
	return 0;
}

// ---- worlds -------------------------------------------------------------------------------------------

// Kept worlds count against their client's address, across its reconnections (server_limits.h,
// max_kept_worlds_per_client); `except` is a world changing hands, not counted.
static int32_t kept_quota(const server* srv, const session* s, const world_host* except, char* why, size_t cap)
{
	int64_t kept = 0;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		const world_host* h = srv->worlds.items[i];
		if (h != NULL && h != except && !h->closed && h->members.keep && strcmp(h->members.keeper, s->address) == 0)
		{
			kept += 1;
		}
	}
	int64_t max = srv->config.limits.max_kept_worlds_per_client;
	if (kept >= max)
	{
		snprintf(why, cap,
				 "max_kept_worlds_per_client (%lld) reached for %s: kept worlds count against their client's address "
				 "across reconnections",
				 (long long)max, s->address);
		return SV_ERR_LIMIT_REACHED;
	}
	return 0;
}

static int32_t check_kept_quota(command_ctx* ctx, const world_host* except)
{
	return kept_quota(ctx->srv, ctx->session, except, ctx->detail, sizeof(ctx->detail));
}

// A world that now outlives its owner counts against the owner's address.
static void keep_for(world_host* host, const session* s)
{
	snprintf(host->members.keeper, sizeof(host->members.keeper), "%s", s->address);
}

// A new world for session s: within max_worlds and its max_worlds_per_client, and if it is kept, within
// its address's max_kept_worlds_per_client.
static int32_t world_quota(const server* srv, const session* s, bool keep, char* why, size_t cap)
{
	const server_limits* l = &srv->config.limits;
	if (srv->worlds.count + srv->clones_pending >= l->max_worlds)
	{
		snprintf(why, cap, "max_worlds (%lld) reached", (long long)l->max_worlds);
		return SV_ERR_LIMIT_REACHED;
	}
	if (s->worlds_owned + s->clones_pending >= l->max_worlds_per_client)
	{
		snprintf(why, cap, "max_worlds_per_client (%lld) reached", (long long)l->max_worlds_per_client);
		return SV_ERR_LIMIT_REACHED;
	}
	return keep ? kept_quota(srv, s, NULL, why, cap) : 0;
}

static int32_t check_world_quota(command_ctx* ctx, bool keep)
{
	return world_quota(ctx->srv, ctx->session, keep, ctx->detail, sizeof(ctx->detail));
}

static void announce_time_mode(world_host* host)
{
	sinew_v1_Event event = sinew_v1_Event_init_zero;
	event.world_id = host->id;
	event.which_event = sinew_v1_Event_time_mode_tag;
	event.event.time_mode.has_time = true;
	event.event.time_mode.time.mode = host->pacing.mode;
	event.event.time_mode.time.has_rate = true;
	event.event.time_mode.time.rate = host->pacing.rate;
	event.event.time_mode.time.has_lockstep_timeout_ms = true;
	event.event.time_mode.time.lockstep_timeout_ms = host->pacing.lockstep_timeout_ms;
	event.event.time_mode.tick = host->cached.step_count;
	world_host_broadcast(host, &event);
}

int32_t handle_create_world(command_ctx* ctx)
{
	const sinew_v1_CreateWorld* c = &ctx->msg.command.create_world;
	int32_t code = check_world_quota(ctx, c->keep_after_disconnect);
	if (code != 0)
	{
		return code;
	}
	sn_world_def def = sn_default_world_def();
	if (c->has_settings && !cv_world_settings(&c->settings, &def, ctx->detail, sizeof(ctx->detail)))
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	def.id_tag = ++ctx->srv->next_id_tag;
	sn_error err = sn_world_def_check(&def, ctx->detail, sizeof(ctx->detail));
	if (err != SN_ERR_OK)
	{
		return err;
	}
	time_settings time = { sinew_v1_TimeMode_TIME_PAUSED, 1.0, (uint32_t)ctx->srv->config.limits.lockstep_timeout_ms };
	if (c->has_time)
	{
		code = pacing_check(&c->time, time, &time, ctx->detail, sizeof(ctx->detail));
		if (code != 0)
		{
			return code;
		}
	}
	sn_world* world = NULL;
	err = sn_world_create(&def, &world);
	if (err != SN_ERR_OK)
	{
		return cmd_fail(ctx, err, "could not create the world");
	}
	world_host* host = NULL;
	code = world_host_create(ctx->srv, world, c->name, ctx->session->id, c->keep_after_disconnect, &host, ctx->detail,
							 sizeof(ctx->detail));
	if (code != 0)
	{
		return code;
	}
	ctx->session->worlds_owned += 1;
	if (c->keep_after_disconnect)
	{
		keep_for(host, ctx->session);
	}
	host->pacing.sleep_mode = c->has_settings ? c->settings.sleep : sinew_v1_SleepMode_SLEEP_DEFAULT;
	pacing_set(host, time);
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = host->id;
	return 0;
}

int32_t handle_destroy_world(command_ctx* ctx)
{
	if (ctx->host->destroy_protected)
	{
		return cmd_fail(ctx, SV_ERR_PROTECTED,
						"world \"%s\" is the demo world: this server refuses to destroy it (start sinewd with "
						"--allow-demo-destroy or SINEW_ALLOW_DEMO_DESTROY=1 to allow it)",
						ctx->host->name);
	}
	world_host_destroy(ctx->host, "destroyed by its owner");
	return 0;
}

typedef struct list_context
{
	server* srv;
	uint64_t session_id;
	uint64_t now_ns; // one time for both encoding passes (callbacks must write the same bytes twice)
} list_context;

static bool encode_world_list(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const list_context* lc = *arg;
	for (int i = 0; i < lc->srv->worlds.high; ++i)
	{
		const world_host* host = lc->srv->worlds.items[i];
		if (host == NULL || host->doomed)
		{
			continue;
		}
		sinew_v1_WorldInfo info = sinew_v1_WorldInfo_init_zero;
		world_host_info(host, lc->session_id, lc->now_ns, &info);
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_WorldInfo_fields, &info))
		{
			return false;
		}
	}
	return true;
}

int32_t handle_list_worlds(command_ctx* ctx)
{
	list_context* lc = malloc(sizeof(list_context));
	if (lc == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	lc->srv = ctx->srv;
	lc->session_id = ctx->session->id;
	lc->now_ns = server_now_ns();
	ctx->reply_scratch = lc;
	ctx->reply_scratch_free = free;
	ctx->reply.which_result = sinew_v1_Reply_worlds_tag;
	ctx->reply.result.worlds.worlds.funcs.encode = encode_world_list;
	ctx->reply.result.worlds.worlds.arg = lc;
	return 0;
}

// Snapshot a world into a new malloc'd buffer.
static int32_t take_snapshot(command_ctx* ctx, const sn_world* world, uint8_t** out, size_t* size)
{
	size_t need = sn_world_snapshot_size(world);
	uint8_t* buffer = malloc(need > 0 ? need : 1);
	if (buffer == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "no memory for a %zu-byte snapshot", need);
	}
	sn_error err = sn_world_snapshot_write(world, buffer, need, size);
	if (err != SN_ERR_OK)
	{
		free(buffer);
		return cmd_fail(ctx, err, "could not write the snapshot");
	}
	*out = buffer;
	return 0;
}

// The default name of a clone of `base`: "<base> clone", or "<base> clone N" with N one above the largest
// such number on the server (at least 2) when that is taken. One pass over the worlds.
static void clone_name(const server* srv, const char* base, char* out, size_t cap)
{
	char stem[64];
	snprintf(stem, sizeof(stem), "%.50s", base);
	wire_utf8_trim(stem); // never cut inside a character
	snprintf(stem + strlen(stem), sizeof(stem) - strlen(stem), " clone");
	size_t n = strlen(stem);
	bool taken = false;
	long highest = 1;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		const world_host* host = srv->worlds.items[i];
		if (host == NULL || host->doomed || host->closed || strncmp(host->name, stem, n) != 0)
		{
			continue;
		}
		if (host->name[n] == '\0')
		{
			taken = true;
		}
		else if (host->name[n] == ' ')
		{
			char* end = NULL;
			long k = strtol(host->name + n + 1, &end, 10);
			highest = end != host->name + n + 1 && *end == '\0' && k > highest && k < 1000000000 ? k : highest;
		}
	}
	if (taken)
	{
		snprintf(out, cap, "%s %ld", stem, highest + 1);
	}
	else
	{
		snprintf(out, cap, "%s", stem);
	}
}

int32_t handle_configure_world(command_ctx* ctx)
{
	const sinew_v1_ConfigureWorld* c = &ctx->msg.command.configure_world;
	sn_world* world = ctx->host->world;
	sn_world_def def = sn_world_get_def(world);
	if (c->has_settings && !cv_world_settings(&c->settings, &def, ctx->detail, sizeof(ctx->detail)))
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_error err = sn_world_def_check(&def, ctx->detail, sizeof(ctx->detail));
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_world_def old = sn_world_get_def(world);
	if (def.divergence_speed != old.divergence_speed)
	{
		return cmd_fail(ctx, SN_ERR_UNSUPPORTED, "divergence_speed can only be set when the world is created");
	}
	// The whole def is valid, so each setter (which checks the def with its one change) succeeds.
	sn_world_set_gravity(world, def.gravity);
	sn_world_set_time_step(world, def.time_step);
	sn_world_set_solver(world, def.solver);
	sn_world_set_iterations(world, def.position_iterations, def.velocity_iterations);
	sn_world_set_substeps(world, def.substeps);
	sn_world_set_erp(world, def.erp);
	sn_world_set_warm_start(world, def.warm_start);
	sn_world_set_implicit_factors(world, def.implicit_alpha, def.implicit_beta);
	sn_world_set_contact_settings(world, def.contact);
	world_host_refresh_settings(ctx->host); // before pacing_set below reads the time step
	sn_sleep_settings sleep = def.sleep;
	sleep.enabled = old.sleep.enabled; // the mode below decides
	sn_world_set_sleep_settings(world, sleep);
	if (c->has_settings)
	{
		pacing_set_sleep(ctx->host, c->settings.sleep);
	}
	if (def.time_step != old.time_step)
	{
		const world_pacing* p = &ctx->host->pacing;
		pacing_set(ctx->host, (time_settings){ p->mode, p->rate, p->lockstep_timeout_ms });
	}
	ctx->reply.which_result = sinew_v1_Reply_world_tag;
	world_host_info(ctx->host, ctx->session->id, server_now_ns(), &ctx->reply.result.world);
	return 0;
}

int32_t handle_join_world(command_ctx* ctx)
{
	const sinew_v1_JoinWorld* j = &ctx->msg.command.join_world;
	world_host* host = ctx->host;
	session* s = ctx->session;
	bool owner = host->members.owner == s->id;
	switch (j->role)
	{
		case sinew_v1_Role_ROLE_OBSERVER:
		case sinew_v1_Role_ROLE_UNSPECIFIED:
		{
			// A controller becoming an observer takes back its input for the pending tick (answered now), or
			// its request would wait for a tick that no longer waits for it.
			world_member* was = members_find(&host->members, s->id);
			if (was != NULL && !host->busy) // a tick in progress has applied it: its end answers it
			{
				lockstep_withdraw(host, was, SV_ERR_FORBIDDEN_BY_ROLE,
								  "the session joined as an observer: its input for the pending tick is withdrawn");
			}
			if (!members_set(&host->members, s->id, owner ? sinew_v1_Role_ROLE_OWNER : sinew_v1_Role_ROLE_OBSERVER,
							 false))
			{
				return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
			}
			lockstep_member_changed(host);
			break;
		}
		case sinew_v1_Role_ROLE_CONTROLLER:
		{
			if (s->role == sinew_v1_Role_ROLE_OBSERVER)
			{
				return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "an observer session cannot control a world");
			}
			uint64_t now = server_now_ns();
			uint64_t until = owner ? 0 : members_barred_until(&host->members, s->address, now);
			if (until != 0)
			{
				return cmd_fail(
					ctx, SV_ERR_FORBIDDEN_BY_ROLE,
					"a controller from %s was demoted in world %llu for sending no lockstep input in time, or "
					"gave a wrong controller key; this address may control it again in %.0f s",
					s->address, (unsigned long long)host->id, (double)(until - now) * 1e-9 + 0.5);
			}
			int32_t refused = owner ? 0 : check_key(ctx, "controlling");
			if (refused != 0)
			{
				return refused;
			}
			if (!members_set(&host->members, s->id, owner ? sinew_v1_Role_ROLE_OWNER : sinew_v1_Role_ROLE_CONTROLLER,
							 true))
			{
				return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
			}
			break;
		}
		case sinew_v1_Role_ROLE_OWNER:
			if (s->role == sinew_v1_Role_ROLE_OBSERVER)
			{
				return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "an observer session cannot own a world");
			}
			if (!owner)
			{
				if (host->members.owner != 0)
				{
					return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "world %llu already has an owner",
									(unsigned long long)host->id);
				}
				int32_t refused = check_key(ctx, "adopting");
				if (refused != 0)
				{
					return refused;
				}
				// A client's kept world now counts against its new owner; the server's own (the demo world,
				// no keeper) stays the server's.
				bool clients = host->members.keeper[0] != '\0';
				int32_t code = check_world_quota(ctx, false);
				if (code == 0 && clients)
				{
					code = check_kept_quota(ctx, host);
				}
				if (code != 0)
				{
					return code;
				}
				world_member* m = members_find(&host->members, s->id);
				if (!members_set(&host->members, s->id, sinew_v1_Role_ROLE_OWNER, m != NULL && m->controlling))
				{
					return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
				}
				host->members.owner = s->id;
				host->members.keep = true; // adopted worlds stay ownerless-safe
				if (clients)
				{
					keep_for(host, s);
					persist_world_changed(host); // its keeper changed
				}
				s->worlds_owned += 1;
			}
			break;
		default:
			return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "unknown role %d", (int)j->role);
	}
	ctx->reply.which_result = sinew_v1_Reply_joined_tag;
	ctx->reply.result.joined.role = members_role(&host->members, s->id);
	ctx->reply.result.joined.tick = host->cached.step_count;
	return 0;
}

int32_t handle_set_controller_key(command_ctx* ctx)
{
	const char* key = ctx->msg.command.set_controller_key.key;
	world_host* host = ctx->host;
	world_members* members = &host->members;
	if (members->keep && members->keeper[0] == '\0')
	{
		// The server's own world (the demo world) outlives every adopter and counts against nobody: a key
		// left by an adopter who then went would lock everyone out of it until the server restarts.
		return cmd_fail(ctx, SV_ERR_PROTECTED,
						"set controller key: world %llu is the server's own and open to every controller; clone it "
						"(CloneWorld) to control a copy by key",
						(unsigned long long)host->id);
	}
	if (key[0] == '\0')
	{
		members->has_key = false;
		memset(members->key_hash, 0, sizeof(members->key_hash));
		persist_world_changed(host);
		return 0;
	}
	if (!wire_sha256(key, strlen(key), members->key_hash))
	{
		return cmd_fail(ctx, SV_ERR_INTERNAL, "set controller key: could not hash the key");
	}
	members->has_key = true;
	// Who controls now joined without the key: observers until they join with it. The world is idle
	// (the command waits for a step or tick to end), so pending lockstep inputs are answered here.
	const char* reason = "the owner set a controller key: join again with it to control the world";
	for (int i = 0; i < members->count; ++i)
	{
		world_member* m = members->list + i;
		if (!m->controlling || m->session_id == members->owner)
		{
			continue;
		}
		lockstep_withdraw(host, m, SV_ERR_FORBIDDEN_BY_ROLE, reason);
		m->controlling = false;
		if (m->role == sinew_v1_Role_ROLE_CONTROLLER)
		{
			m->role = sinew_v1_Role_ROLE_OBSERVER;
		}
		sinew_v1_Event event = sinew_v1_Event_init_zero;
		event.world_id = host->id;
		event.which_event = sinew_v1_Event_demoted_tag;
		event.event.demoted.session_id = m->session_id;
		event.event.demoted.tick = host->cached.step_count;
		snprintf(event.event.demoted.reason, sizeof(event.event.demoted.reason), "%s", reason);
		world_host_broadcast(host, &event);
	}
	lockstep_member_changed(host);
	persist_world_changed(host);
	return 0;
}

int32_t handle_leave_world(command_ctx* ctx)
{
	world_host* host = ctx->host;
	uint64_t sid = ctx->session->id;
	if (host->members.owner == sid)
	{
		// The owner stays the owner; leaving only ends its part in lockstep.
		members_set(&host->members, sid, sinew_v1_Role_ROLE_OWNER, false);
	}
	else
	{
		world_host_remove_member(host, sid);
	}
	lockstep_member_changed(host);
	return 0;
}

int32_t handle_set_time_mode(command_ctx* ctx)
{
	const sinew_v1_SetTimeMode* t = &ctx->msg.command.set_time_mode;
	world_host* host = ctx->host;
	time_settings time = { host->pacing.mode, host->pacing.rate, host->pacing.lockstep_timeout_ms };
	if (t->has_time)
	{
		int32_t code = pacing_check(&t->time, time, &time, ctx->detail, sizeof(ctx->detail));
		if (code != 0)
		{
			return code;
		}
	}
	pacing_set(host, time);
	announce_time_mode(host);
	ctx->reply.which_result = sinew_v1_Reply_step_tag;
	ctx->reply.result.step.step_count = host->cached.step_count;
	ctx->reply.result.step.time = host->cached.time;
	ctx->reply.result.step.diverged = host->cached.diverged;
	return 0;
}

int32_t handle_step(command_ctx* ctx)
{
	const sinew_v1_Step* st = &ctx->msg.command.step;
	world_host* host = ctx->host;
	if (host->pacing.mode != sinew_v1_TimeMode_TIME_PAUSED)
	{
		return cmd_fail(ctx, SV_ERR_WRONG_TIME_MODE,
						"step: world %llu is not paused (set its time mode to paused first)",
						(unsigned long long)host->id);
	}
	if (st->count == 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "step: count must be at least 1");
	}
	if (ctx->srv->shutting_down)
	{
		return cmd_fail(ctx, SV_ERR_SHUTTING_DOWN, "step: the server is shutting down");
	}
	if ((int64_t)st->count > ctx->srv->config.limits.max_steps_per_request)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "step: count %u is above max_steps_per_request (%lld)",
						(unsigned)st->count, (long long)ctx->srv->config.limits.max_steps_per_request);
	}
	if (host->cached.diverged)
	{
		return cmd_fail(ctx, SN_ERR_DIVERGED, "%s",
						sn_world_last_error_detail(host->world)[0] != '\0'
							? sn_world_last_error_detail(host->world)
							: "the world has diverged; reset or restore it");
	}
	host->step_session = ctx->session->id;
	host->step_request = ctx->request_id;
	ctx->deferred = true;
	world_host_start_step(host, STEP_COMMAND, st->count, 0, true);
	return 0;
}

// ---- snapshots ----------------------------------------------------------------------------------------

typedef struct snapshot_scratch
{
	wire_bytes bytes;
	uint8_t* data;
} snapshot_scratch;

static void free_snapshot_scratch(void* p)
{
	snapshot_scratch* s = p;
	free(s->data);
	free(s);
}

int32_t handle_snapshot(command_ctx* ctx)
{
	const sinew_v1_Snapshot* sn = &ctx->msg.command.snapshot;
	world_host* host = ctx->host;
	if (sn->make_reset_point && ctx->world_role < sinew_v1_Role_ROLE_OWNER)
	{
		return cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "only the owner may set the reset point");
	}
	snapshot_scratch* scratch = calloc(1, sizeof(snapshot_scratch));
	if (scratch == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	ctx->reply_scratch = scratch;
	ctx->reply_scratch_free = free_snapshot_scratch;
	size_t size = 0;
	int32_t code = take_snapshot(ctx, host->world, &scratch->data, &size);
	if (code != 0)
	{
		return code;
	}
	if (sn->make_reset_point)
	{
		uint8_t* copy = malloc(size > 0 ? size : 1);
		if (copy == NULL)
		{
			return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
		}
		memcpy(copy, scratch->data, size);
		world_host_keep_reset_point(host, copy, size);
	}
	scratch->bytes.data = scratch->data;
	scratch->bytes.size = size;
	ctx->reply.which_result = sinew_v1_Reply_snapshot_tag;
	ctx->reply.result.snapshot.data.funcs.encode = wire_encode_bytes;
	ctx->reply.result.snapshot.data.arg = &scratch->bytes;
	ctx->reply.result.snapshot.step_count = host->cached.step_count;
	return 0;
}

// ---- worlds built from snapshots, off the loop --------------------------------------------------------
//
// Restore, Reset and CloneWorld build a world from a snapshot, and the build makes every convex hull and
// every triangle mesh's bounding volume hierarchy again: for a mesh of a million triangles that is a
// second of work. A world job does it on a worker, as CreateShape's and LoadUrdf's builds are done, while
// the world's commands wait; the loop only swaps the built world in (Restore, Reset) or hosts it
// (CloneWorld). The built world is counted on the worker against the per-world limits, all of those a
// world built command by command meets.

typedef enum snapshot_kind
{
	SNAPSHOT_RESTORE, // the command's bytes replace the world and become its reset point
	SNAPSHOT_RESET,   // the host's reset point replaces the world
	SNAPSHOT_CLONE,   // the world's snapshot, written by the job, becomes a new world (and its reset point)
} snapshot_kind;

typedef struct snapshot_job
{
	world_job base; // first: the host's job
	snapshot_kind kind;
	server* srv;
	uint64_t session_id;
	uint64_t request_id;
	int command;
	server_limits limits;
	const uint8_t* bytes; // RESTORE: `owned`; RESET: the host's reset point, which stays while the job runs
	size_t size;
	uint8_t* owned;  // the bytes the job owns: RESTORE's, CLONE's snapshot
	sn_world* world; // built
	int32_t code;
	char detail[256];
	bool keep;                    // CLONE: keep_after_disconnect
	char name[64];                // CLONE: the name asked for, or empty
	char source_name[64];         // CLONE: the source's name (a clone's default name is made from it)
	model_registry models;        // CLONE: the source's robot descriptions, for the clone
	uint32_t lockstep_timeout_ms; // CLONE: the source's
	uint64_t created;             // CLONE: the new world's id
	// RESTORE: the meshes its triangle-mesh shapes are drawn with (shapes.h), made here rather than on the
	// loop by the next DescribeWorld (12 ms for 500,000 triangles). Reset and a clone keep the ones they had.
	sn_shape_id* mesh_shapes;
	asset_blob** meshes;
	int mesh_count;
} snapshot_job;

// The per-world limits a world built from a snapshot must fit (bodies and articulation links together,
// joints, shapes, mesh triangles, and each articulation what a state frame carries). 0, or the error with
// `why`.
static int32_t snapshot_fits(const server_limits* l, const sn_world* world, char* why, size_t cap)
{
	int64_t bodies = sn_world_get_body_count(world);
	int joints = sn_world_get_joint_count(world);
	int shapes = sn_world_get_shape_count(world);
	int64_t max_links = l->max_links_per_articulation < FRAME_MAX_ARTICULATION_LINKS ? l->max_links_per_articulation
																					 : FRAME_MAX_ARTICULATION_LINKS;
	int n = sn_world_get_articulations(world, NULL, 0);
	sn_articulation_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_articulation_id));
	if (ids == NULL)
	{
		snprintf(why, cap, "out of memory");
		return SN_ERR_NO_MEMORY;
	}
	n = sn_world_get_articulations(world, ids, n);
	int32_t code = 0;
	for (int i = 0; i < n && code == 0; ++i)
	{
		int links = sn_articulation_get_link_count(world, ids[i]);
		int dofs = sn_articulation_get_dof_count(world, ids[i]);
		bodies += links;
		if (links > max_links || dofs > FRAME_MAX_ARTICULATION_DOFS)
		{
			snprintf(why, cap,
					 "the snapshot has an articulation of %d links and %d dofs; max_links_per_articulation is %lld, "
					 "and a state frame carries at most %d links and %d dofs",
					 links, dofs, (long long)l->max_links_per_articulation, FRAME_MAX_ARTICULATION_LINKS,
					 FRAME_MAX_ARTICULATION_DOFS);
			code = SV_ERR_LIMIT_REACHED;
		}
	}
	free(ids);
	if (code != 0)
	{
		return code;
	}
	if (bodies > l->max_bodies_per_world)
	{
		snprintf(why, cap, "the snapshot has %lld bodies and articulation links; max_bodies_per_world is %lld",
				 (long long)bodies, (long long)l->max_bodies_per_world);
		return SV_ERR_LIMIT_REACHED;
	}
	if (joints > l->max_joints_per_world)
	{
		snprintf(why, cap, "the snapshot has %d joints; max_joints_per_world is %lld", joints,
				 (long long)l->max_joints_per_world);
		return SV_ERR_LIMIT_REACHED;
	}
	if (shapes > l->max_shapes_per_world)
	{
		snprintf(why, cap, "the snapshot has %d shapes; max_shapes_per_world is %lld", shapes,
				 (long long)l->max_shapes_per_world);
		return SV_ERR_LIMIT_REACHED;
	}
	int mimics = sn_world_get_mimic_joints(world, NULL, 0);
	if (mimics > l->max_mimic_joints_per_world)
	{
		snprintf(why, cap, "the snapshot has %d mimic joints; max_mimic_joints_per_world is %lld", mimics,
				 (long long)l->max_mimic_joints_per_world);
		return SV_ERR_LIMIT_REACHED;
	}
	int64_t triangles = shapes_world_mesh_triangles(world);
	if (triangles > l->max_mesh_triangles_per_world)
	{
		snprintf(why, cap, "the snapshot's meshes have %lld triangles; max_mesh_triangles_per_world is %lld",
				 (long long)triangles, (long long)l->max_mesh_triangles_per_world);
		return SV_ERR_LIMIT_REACHED;
	}
	return 0;
}

// The drawing meshes of the built world's triangle-mesh shapes (best effort: one that cannot be made is
// made by DescribeWorld when it is asked for).
static void make_meshes(snapshot_job* job)
{
	int n = sn_world_get_shape_count(job->world);
	job->mesh_shapes = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_shape_id));
	job->meshes = malloc((size_t)(n > 0 ? n : 1) * sizeof(asset_blob*));
	if (job->mesh_shapes == NULL || job->meshes == NULL)
	{
		return;
	}
	n = sn_world_get_shapes(job->world, job->mesh_shapes, n);
	for (int i = 0; i < n; ++i)
	{
		asset_blob* blob = shapes_mesh_blob(job->world, job->mesh_shapes[i]); // NULL for other shapes
		if (blob != NULL)
		{
			job->mesh_shapes[job->mesh_count] = job->mesh_shapes[i];
			job->meshes[job->mesh_count++] = blob;
		}
	}
}

// On a worker: build the world from the job's bytes and count it.
static void build(snapshot_job* job)
{
	sn_error err = sn_world_create_from_snapshot(job->bytes, job->size, NULL, &job->world);
	if (err != SN_ERR_OK)
	{
		job->code = (int32_t)err;
		snprintf(job->detail, sizeof(job->detail), "the snapshot was rejected (%zu bytes): %s", job->size,
				 sn_error_message(err));
		return;
	}
	job->code = snapshot_fits(&job->limits, job->world, job->detail, sizeof(job->detail));
	if (job->code == 0 && job->kind == SNAPSHOT_RESTORE)
	{
		make_meshes(job);
	}
}

// On a worker, the world's job: RESTORE and RESET build the world; CLONE writes the source's snapshot
// only (its build runs in a job of its own, clone_build, so the source world is held no longer).
static void snapshot_run(world_job* base)
{
	snapshot_job* job = (snapshot_job*)base;
	if (job->kind != SNAPSHOT_CLONE)
	{
		build(job);
		return;
	}
	const sn_world* source = base->host->world; // the job owns it while it runs
	size_t need = sn_world_snapshot_size(source);
	job->owned = malloc(need > 0 ? need : 1);
	sn_error err =
		job->owned != NULL ? sn_world_snapshot_write(source, job->owned, need, &job->size) : SN_ERR_NO_MEMORY;
	if (err != SN_ERR_OK)
	{
		job->code = (int32_t)err;
		snprintf(job->detail, sizeof(job->detail), "clone world: no memory for a %zu-byte snapshot", need);
		return;
	}
	job->bytes = job->owned;
}

// CloneWorld requests in flight: each holds a snapshot and takes a worker for its build, so they count as
// the worlds they will be (max_worlds, max_worlds_per_client), and one session has at most
// CLONES_PER_SESSION of them in flight, the server CLONES_IN_FLIGHT.
enum
{
	CLONES_PER_SESSION = 2,
	CLONES_IN_FLIGHT = 8
};

static void clone_settled(server* srv, uint64_t session_id)
{
	srv->clones_pending -= 1;
	session* s = server_session(srv, session_id);
	if (s != NULL)
	{
		s->clones_pending -= 1;
	}
}

// Host the clone for its session (if it is still there and still within its quotas). 0, or the error.
static int32_t clone_host(snapshot_job* job, server* srv)
{
	session* s = server_session(srv, job->session_id);
	if (s == NULL)
	{
		snprintf(job->detail, sizeof(job->detail), "the session that asked for the clone has closed");
		return SN_ERR_INVALID_ID; // nobody to own it, nobody to answer
	}
	if (srv->shutting_down)
	{
		snprintf(job->detail, sizeof(job->detail), "clone world: the server is shutting down");
		return SV_ERR_SHUTTING_DOWN;
	}
	int32_t code = world_quota(srv, s, job->keep, job->detail, sizeof(job->detail));
	if (code != 0)
	{
		return code;
	}
	if (job->name[0] == '\0')
	{
		clone_name(srv, job->source_name, job->name, sizeof(job->name));
	}
	world_host* host = NULL;
	code = world_host_create_at(srv, job->world, job->name, s->id, job->keep, 0,
								(kept_snapshot){ job->owned, job->size }, &host, job->detail, sizeof(job->detail));
	job->world = NULL; // the host's, also on failure
	job->owned = NULL;
	if (code != 0)
	{
		return code;
	}
	s->worlds_owned += 1;
	if (job->keep)
	{
		keep_for(host, s);
	}
	// The clone's articulations keep their ids: their robot descriptions go with them (without them,
	// DescribeWorld still gives the links).
	if (!model_registry_copy(&host->models, &job->models))
	{
		model_registry_clear(&host->models);
	}
	pacing_set(host, (time_settings){ sinew_v1_TimeMode_TIME_PAUSED, 1.0, job->lockstep_timeout_ms });
	job->created = host->id;
	return 0;
}

static void free_snapshot_job(snapshot_job* job)
{
	sn_world_destroy(job->world);
	free(job->owned);
	for (int i = 0; i < job->mesh_count; ++i)
	{
		asset_blob_unref(job->meshes[i]);
	}
	free(job->meshes);
	free(job->mesh_shapes);
	model_registry_free(&job->models);
	free(job);
}

static void clone_build_run(uv_work_t* work)
{
	build(work->data);
}

// Back on the loop with the clone built: host it, reply.
static void clone_build_after(uv_work_t* work, int status)
{
	(void)status;
	snapshot_job* job = work->data;
	server* srv = job->srv;
	srv->stepper.jobs_in_flight -= 1;
	clone_settled(srv, job->session_id);
	if (job->code == 0)
	{
		job->code = clone_host(job, srv);
	}
	metrics_count_command(&srv->metrics, job->command, job->code);
	sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
	reply.which_result = sinew_v1_Reply_created_tag;
	reply.result.created.id = job->created;
	session_reply_to(srv, job->session_id, job->request_id, job->code, job->detail, job->code == 0 ? &reply : NULL);
	free_snapshot_job(job);
}

// The source's snapshot is written and the source is free again: build the clone on a worker, holding
// no world (the build of a large mesh takes as long as a Restore's).
static void clone_build(snapshot_job* job, world_host* source)
{
	snprintf(job->source_name, sizeof(job->source_name), "%s", source->name);
	if (!model_registry_copy(&job->models, &source->models))
	{
		model_registry_clear(&job->models);
	}
	job->lockstep_timeout_ms = source->pacing.lockstep_timeout_ms;
	job->srv = source->srv;
	job->base.work.data = job;
	job->srv->stepper.jobs_in_flight += 1;
	if (uv_queue_work(job->srv->loop, &job->base.work, clone_build_run, clone_build_after) != 0)
	{
		clone_build_run(&job->base.work);
		clone_build_after(&job->base.work, 0);
	}
}

// Back on the loop, the host idle again: swap the world in, or host the clone; reply.
static void snapshot_done(world_job* base)
{
	snapshot_job* job = (snapshot_job*)base;
	world_host* host = base->host;
	server* srv = host->srv;
	if (job->code == 0 && host->doomed)
	{
		job->code = SV_ERR_UNKNOWN_WORLD;
		snprintf(job->detail, sizeof(job->detail), "world %llu was destroyed meanwhile", (unsigned long long)host->id);
	}
	if (job->code == 0 && job->kind == SNAPSHOT_CLONE)
	{
		clone_build(job, host); // it replies, and frees the job
		return;
	}
	if (job->kind == SNAPSHOT_CLONE)
	{
		clone_settled(srv, job->session_id);
	}
	if (job->code == 0)
	{
		world_host_replace_world(host, job->world);
		job->world = NULL;
		if (job->kind == SNAPSHOT_RESTORE)
		{
			// The bytes may come from another world whose articulations share ids with this one's robots.
			model_registry_clear(&host->models);
			world_host_keep_reset_point(host, job->owned, job->size);
			job->owned = NULL;
			for (int i = 0; i < job->mesh_count; ++i)
			{
				shapes_keep_mesh(host, job->mesh_shapes[i], job->meshes[i]);
			}
		}
		controller_resume(&host->controller); // a world's own motion (the demo's) takes over again
	}
	metrics_count_command(&srv->metrics, job->command, job->code);
	sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
	reply.which_result = sinew_v1_Reply_step_tag; // a clone that failed sends no result
	reply.result.step.step_count = host->cached.step_count;
	reply.result.step.time = host->cached.time;
	reply.result.step.diverged = host->cached.diverged;
	session_reply_to(srv, job->session_id, job->request_id, job->code, job->detail, job->code == 0 ? &reply : NULL);
	free_snapshot_job(job);
}

// Start the job of `kind` for the command (its bytes, for RESTORE, move into the job).
static int32_t start_snapshot_job(command_ctx* ctx, snapshot_kind kind)
{
	snapshot_job* job = calloc(1, sizeof(snapshot_job));
	if (job == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	job->kind = kind;
	job->session_id = ctx->session->id;
	job->request_id = ctx->request_id;
	job->command = ctx->index;
	job->limits = ctx->srv->config.limits;
	if (kind == SNAPSHOT_RESTORE)
	{
		job->owned = ctx->bytes;
		job->bytes = ctx->bytes;
		job->size = ctx->bytes_size;
		ctx->bytes = NULL;
		ctx->bytes_size = 0;
	}
	else if (kind == SNAPSHOT_RESET)
	{
		job->bytes = ctx->host->reset_point.bytes;
		job->size = ctx->host->reset_point.size;
	}
	else
	{
		const sinew_v1_CloneWorld* c = &ctx->msg.command.clone_world;
		job->keep = c->keep_after_disconnect;
		snprintf(job->name, sizeof(job->name), "%s", c->name);
	}
	job->base.run = snapshot_run;
	job->base.done = snapshot_done;
	job->base.reads_only = kind == SNAPSHOT_CLONE; // the source is only written out
	ctx->deferred = true;
	world_host_start_job(ctx->host, &job->base);
	return 0;
}

int32_t handle_restore(command_ctx* ctx)
{
	return start_snapshot_job(ctx, SNAPSHOT_RESTORE);
}

int32_t handle_reset(command_ctx* ctx)
{
	if (ctx->host->reset_point.bytes == NULL)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "world %llu has no reset point",
						(unsigned long long)ctx->host->id);
	}
	return start_snapshot_job(ctx, SNAPSHOT_RESET);
}

int32_t handle_clone_world(command_ctx* ctx)
{
	// The quotas are checked again when the clone is built: other worlds may have come meanwhile.
	int32_t code = check_world_quota(ctx, ctx->msg.command.clone_world.keep_after_disconnect);
	if (code != 0)
	{
		return code;
	}
	if (ctx->session->clones_pending >= CLONES_PER_SESSION || ctx->srv->clones_pending >= CLONES_IN_FLIGHT)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED,
						"clone world: %d clones are being built (at most %d of one session, %d on the server); "
						"try again when one is answered",
						ctx->session->clones_pending >= CLONES_PER_SESSION ? ctx->session->clones_pending
																		   : ctx->srv->clones_pending,
						CLONES_PER_SESSION, CLONES_IN_FLIGHT);
	}
	// Counted before the job starts: without a thread pool it may end before start_snapshot_job returns.
	ctx->session->clones_pending += 1;
	ctx->srv->clones_pending += 1;
	code = start_snapshot_job(ctx, SNAPSHOT_CLONE);
	if (code != 0)
	{
		clone_settled(ctx->srv, ctx->session->id);
	}
	return code;
}

// ---- state --------------------------------------------------------------------------------------------

int32_t handle_subscribe(command_ctx* ctx)
{
	const sinew_v1_Subscribe* sub = &ctx->msg.command.subscribe;
	const server_limits* l = &ctx->srv->config.limits;
	if (ctx->session->subscription_count >= l->max_subscriptions_per_client)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "max_subscriptions_per_client (%lld) reached",
						(long long)l->max_subscriptions_per_client);
	}
	double rate = sub->rate_hz == 0.0 ? 60.0 : sub->rate_hz;
	if (!isfinite(rate))
	{
		return cmd_fail(ctx, SN_ERR_NOT_FINITE, "subscribe: rate_hz must be finite");
	}
	if (!(rate >= SV_MIN_STREAM_RATE_HZ) || rate > (double)l->max_stream_rate_hz)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "subscribe: rate_hz must be in [%g, %lld], got %g",
						SV_MIN_STREAM_RATE_HZ, (long long)l->max_stream_rate_hz, rate);
	}
	if ((sub->include & ~FRAME_INCLUDE_ALL) != 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "subscribe: unknown include bits 0x%x", (unsigned)sub->include);
	}
	uint64_t id = 0;
	int32_t code =
		stream_subscribe(ctx->srv, ctx->session, ctx->host, rate, sub->include, &id, ctx->detail, sizeof(ctx->detail));
	if (code != 0)
	{
		return code;
	}
	ctx->reply.which_result = sinew_v1_Reply_created_tag;
	ctx->reply.result.created.id = id;
	return 0;
}

int32_t handle_unsubscribe(command_ctx* ctx)
{
	uint64_t id = ctx->msg.command.unsubscribe.subscription_id;
	if (!stream_unsubscribe(ctx->srv, ctx->session, id))
	{
		return cmd_fail(ctx, SV_ERR_UNKNOWN_SUBSCRIPTION, "subscription %llu is not one of this session's",
						(unsigned long long)id);
	}
	return 0;
}

static void free_frame_source(void* p)
{
	frame_source_free(p);
	free(p);
}

int32_t handle_get_state(command_ctx* ctx)
{
	const sinew_v1_GetState* g = &ctx->msg.command.get_state;
	if ((g->include & ~FRAME_INCLUDE_ALL) != 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "get state: unknown include bits 0x%x", (unsigned)g->include);
	}
	if ((g->include & sinew_v1_Include_INCLUDE_CONTACT_EVENTS) != 0)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT,
						"get state: INCLUDE_CONTACT_EVENTS comes with subscriptions (events between their frames)");
	}
	frame_source* src = malloc(sizeof(frame_source));
	if (src == NULL ||
		!frame_source_init(src, ctx->host->world, g->include, (int)ctx->srv->config.limits.max_contacts_per_frame))
	{
		free(src);
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	ctx->reply_scratch = src;
	ctx->reply_scratch_free = free_frame_source;
	ctx->reply.which_result = sinew_v1_Reply_state_tag;
	frame_fill(&ctx->reply.result.state, src, ctx->host->id, server_now_ns());
	return 0;
}

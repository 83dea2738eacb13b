// The command table and the gate in front of every handler.
#include "command.h"

#include "errors.h"
#include "log.h"
#include "persist.h"
#include "server.h"
#include "wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// World id of each command that names one.
#define WORLD_OF_(field)                                                                                               \
	static uint64_t world_of_##field(const sinew_v1_ClientMessage* m)                                                  \
	{                                                                                                                  \
		return m->command.field.world_id;                                                                              \
	}
WORLD_OF_(destroy_world)
WORLD_OF_(clone_world)
WORLD_OF_(configure_world)
WORLD_OF_(join_world)
WORLD_OF_(set_controller_key)
WORLD_OF_(leave_world)
WORLD_OF_(set_time_mode)
WORLD_OF_(step)
WORLD_OF_(create_body)
WORLD_OF_(destroy_body)
WORLD_OF_(create_joint)
WORLD_OF_(destroy_joint)
WORLD_OF_(create_articulation)
WORLD_OF_(destroy_articulation)
WORLD_OF_(create_mimic)
WORLD_OF_(destroy_mimic)
WORLD_OF_(load_urdf)
WORLD_OF_(set_drive_targets)
WORLD_OF_(set_joint_state)
WORLD_OF_(set_body_state)
WORLD_OF_(apply_forces)
WORLD_OF_(lockstep_input)
WORLD_OF_(subscribe)
WORLD_OF_(get_state)
WORLD_OF_(snapshot)
WORLD_OF_(restore)
WORLD_OF_(reset)
WORLD_OF_(describe_world)
WORLD_OF_(create_shape)
WORLD_OF_(destroy_shape)
#undef WORLD_OF_

#define TAG_(field) sinew_v1_ClientMessage_##field##_tag
#define OBS_ sinew_v1_Role_ROLE_OBSERVER
#define CTL_ sinew_v1_Role_ROLE_CONTROLLER
#define OWN_ sinew_v1_Role_ROLE_OWNER
#define NONE_ sinew_v1_Role_ROLE_UNSPECIFIED
#define W_ CMD_WORLD
#define WAIT_ CMD_WAITS
#define MUT_ CMD_MUTATES

// One row per oneof case: tag, name, handler, least role in the world, flags, world id.
static const command_def table[] = {
	{ TAG_(handshake), "handshake", handle_handshake, NONE_, 0, NULL },
	{ TAG_(ping), "ping", handle_ping, NONE_, 0, NULL },
	{ TAG_(create_world), "create_world", handle_create_world, NONE_, MUT_, NULL },
	{ TAG_(destroy_world), "destroy_world", handle_destroy_world, OWN_, W_ | WAIT_ | MUT_, world_of_destroy_world },
	{ TAG_(list_worlds), "list_worlds", handle_list_worlds, NONE_, 0, NULL },
	{ TAG_(clone_world), "clone_world", handle_clone_world, OBS_, W_ | WAIT_ | MUT_, world_of_clone_world },
	{ TAG_(configure_world), "configure_world", handle_configure_world, OWN_, W_ | WAIT_ | MUT_,
	  world_of_configure_world },
	{ TAG_(join_world), "join_world", handle_join_world, OBS_, W_, world_of_join_world },
	{ TAG_(set_controller_key), "set_controller_key", handle_set_controller_key, OWN_, W_ | WAIT_,
	  world_of_set_controller_key },
	{ TAG_(leave_world), "leave_world", handle_leave_world, OBS_, W_, world_of_leave_world },
	{ TAG_(set_time_mode), "set_time_mode", handle_set_time_mode, OWN_, W_ | WAIT_ | MUT_, world_of_set_time_mode },
	{ TAG_(step), "step", handle_step, CTL_, W_ | WAIT_ | MUT_, world_of_step },
	{ TAG_(create_body), "create_body", handle_create_body, OWN_, W_ | WAIT_ | MUT_, world_of_create_body },
	{ TAG_(destroy_body), "destroy_body", handle_destroy_body, OWN_, W_ | WAIT_ | MUT_, world_of_destroy_body },
	{ TAG_(create_joint), "create_joint", handle_create_joint, OWN_, W_ | WAIT_ | MUT_, world_of_create_joint },
	{ TAG_(destroy_joint), "destroy_joint", handle_destroy_joint, OWN_, W_ | WAIT_ | MUT_, world_of_destroy_joint },
	{ TAG_(create_articulation), "create_articulation", handle_create_articulation, OWN_, W_ | WAIT_ | MUT_,
	  world_of_create_articulation },
	{ TAG_(destroy_articulation), "destroy_articulation", handle_destroy_articulation, OWN_, W_ | WAIT_ | MUT_,
	  world_of_destroy_articulation },
	{ TAG_(create_mimic), "create_mimic", handle_create_mimic, OWN_, W_ | WAIT_ | MUT_, world_of_create_mimic },
	{ TAG_(destroy_mimic), "destroy_mimic", handle_destroy_mimic, OWN_, W_ | WAIT_ | MUT_, world_of_destroy_mimic },
	{ TAG_(load_urdf), "load_urdf", handle_load_urdf, OWN_, W_ | WAIT_ | MUT_, world_of_load_urdf },
	{ TAG_(set_drive_targets), "set_drive_targets", handle_set_drive_targets, CTL_, W_ | WAIT_ | MUT_,
	  world_of_set_drive_targets },
	{ TAG_(set_joint_state), "set_joint_state", handle_set_joint_state, CTL_, W_ | WAIT_ | MUT_,
	  world_of_set_joint_state },
	{ TAG_(set_body_state), "set_body_state", handle_set_body_state, CTL_, W_ | WAIT_ | MUT_, world_of_set_body_state },
	{ TAG_(apply_forces), "apply_forces", handle_apply_forces, CTL_, W_ | WAIT_ | MUT_, world_of_apply_forces },
	{ TAG_(lockstep_input), "lockstep_input", handle_lockstep_input, CTL_, W_ | WAIT_ | MUT_, world_of_lockstep_input },
	{ TAG_(subscribe), "subscribe", handle_subscribe, OBS_, W_ | WAIT_, world_of_subscribe },
	{ TAG_(unsubscribe), "unsubscribe", handle_unsubscribe, NONE_, 0, NULL },
	{ TAG_(get_state), "get_state", handle_get_state, OBS_, W_ | WAIT_, world_of_get_state },
	{ TAG_(snapshot), "snapshot", handle_snapshot, OBS_, W_ | WAIT_, world_of_snapshot },
	{ TAG_(restore), "restore", handle_restore, OWN_, W_ | WAIT_ | MUT_, world_of_restore },
	{ TAG_(reset), "reset", handle_reset, OWN_, W_ | WAIT_ | MUT_, world_of_reset },
	{ TAG_(describe_world), "describe_world", handle_describe_world, OBS_, W_ | WAIT_, world_of_describe_world },
	{ TAG_(create_shape), "create_shape", handle_create_shape, OWN_, W_ | WAIT_ | MUT_, world_of_create_shape },
	{ TAG_(destroy_shape), "destroy_shape", handle_destroy_shape, OWN_, W_ | WAIT_ | MUT_, world_of_destroy_shape },
	{ TAG_(find_assets), "find_assets", handle_find_assets, NONE_, MUT_, NULL },
	{ TAG_(put_asset), "put_asset", handle_put_asset, NONE_, MUT_, NULL },
	{ TAG_(get_mesh), "get_mesh", handle_get_mesh, NONE_, 0, NULL },
};

enum
{
	TABLE_SIZE = (int)(sizeof(table) / sizeof(table[0]))
};

int command_count(void)
{
	return TABLE_SIZE;
}

const char* command_name(int index)
{
	return index >= 0 && index < TABLE_SIZE ? table[index].name : "unknown";
}

int command_index(pb_size_t tag)
{
	for (int i = 0; i < TABLE_SIZE; ++i)
	{
		if (table[i].tag == tag)
		{
			return i;
		}
	}
	return -1;
}

int32_t cmd_fail(command_ctx* ctx, int32_t code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(ctx->detail, sizeof(ctx->detail), format, args);
	va_end(args);
	return code;
}

int32_t cmd_core(command_ctx* ctx, sn_error error)
{
	if (error != SN_ERR_OK && ctx->host != NULL && ctx->host->world != NULL)
	{
		snprintf(ctx->detail, sizeof(ctx->detail), "%s", sn_world_last_error_detail(ctx->host->world));
	}
	return (int32_t)error;
}

static const char* role_name(sinew_v1_Role role)
{
	switch (role)
	{
		case sinew_v1_Role_ROLE_OBSERVER:
			return "observer";
		case sinew_v1_Role_ROLE_CONTROLLER:
			return "controller";
		case sinew_v1_Role_ROLE_OWNER:
			return "owner";
		default:
			return "none";
	}
}

// ---- decoding -----------------------------------------------------------------------------------------

// All the bytes of a bytes field into ctx->bytes (Restore.data, LoadUrdf.urdf).
static bool read_all_bytes(pb_istream_t* stream, command_ctx* ctx)
{
	size_t size = stream->bytes_left;
	free(ctx->bytes);
	ctx->bytes = malloc(size > 0 ? size : 1);
	ctx->bytes_size = 0;
	if (ctx->bytes == NULL || !pb_read(stream, ctx->bytes, size))
	{
		return false;
	}
	ctx->bytes_size = size;
	return true;
}

// Room for one more entry of a LoadUrdf list; NULL when out of memory, or past COMMAND_URDF_MAX_ENTRIES
// (then urdf_over_limit is set, the entry is skipped and the handler answers LIMIT_REACHED).
static void* grow_entry(void** array, const int* count, int* capacity, size_t size, command_ctx* ctx)
{
	if (*count >= COMMAND_URDF_MAX_ENTRIES)
	{
		ctx->urdf_over_limit = true;
		return NULL;
	}
	if (*count == *capacity)
	{
		int next = *capacity > 0 ? 2 * *capacity : 16;
		void* bigger = realloc(*array, (size_t)next * size);
		if (bigger == NULL)
		{
			return NULL;
		}
		*array = bigger;
		*capacity = next;
	}
	return (char*)*array + (size_t)*count * size;
}

// One Asset of LoadUrdf.assets (its data arrives through the hook while it decodes), up to
// max_assets_per_load (more are skipped and reported by the handler as LIMIT_REACHED).
static bool decode_asset(pb_istream_t* stream, command_ctx* ctx)
{
	if (ctx->asset_count >= ctx->srv->config.limits.max_assets_per_load)
	{
		ctx->assets_over_limit = true;
		return true; // nanopb skips the element
	}
	if (ctx->asset_count == ctx->asset_capacity)
	{
		int capacity = ctx->asset_capacity > 0 ? 2 * ctx->asset_capacity : 16;
		wire_asset* grown = realloc(ctx->assets, (size_t)capacity * sizeof(wire_asset));
		if (grown == NULL)
		{
			return false;
		}
		ctx->assets = grown;
		ctx->asset_capacity = capacity;
	}
	wire_asset* a = ctx->assets + ctx->asset_count;
	memset(a, 0, sizeof(*a));
	ctx->asset_count += 1; // counted now, so that its data is freed with the command even if decoding fails
	sinew_v1_Asset in = sinew_v1_Asset_init_zero;
	if (!pb_decode(stream, sinew_v1_Asset_fields, &in))
	{
		return false;
	}
	memcpy(a->uri, in.uri, sizeof(a->uri) < sizeof(in.uri) ? sizeof(a->uri) : sizeof(in.uri));
	a->uri[sizeof(a->uri) - 1] = '\0';
	a->sha256_size = in.sha256.size;
	memcpy(a->sha256, in.sha256.bytes, in.sha256.size < WIRE_HASH_SIZE ? in.sha256.size : WIRE_HASH_SIZE);
	return true;
}

// The data of the Asset being decoded (the last one counted), up to max_asset_bytes.
static bool decode_asset_data(pb_istream_t* stream, command_ctx* ctx)
{
	if (ctx->asset_count == 0)
	{
		return pb_read(stream, NULL, stream->bytes_left);
	}
	wire_asset* a = ctx->assets + ctx->asset_count - 1;
	size_t size = stream->bytes_left;
	asset_blob_unref(a->data);
	a->data = NULL;
	a->has_data = true;
	a->data_size = size;
	if ((int64_t)size > ctx->srv->config.limits.max_asset_bytes)
	{
		a->too_large = true;
		return pb_read(stream, NULL, size);
	}
	// Straight into a blob: hashed on the worker and kept as it is, without a copy.
	a->data = asset_blob_new(ASSET_FILE, size);
	return a->data != NULL && pb_read(stream, a->data->data, size);
}

// One hash of FindAssets, up to max_assets_per_load of 32 bytes each.
static bool decode_hash(pb_istream_t* stream, command_ctx* ctx)
{
	if (stream->bytes_left != WIRE_HASH_SIZE || ctx->hash_count >= ctx->srv->config.limits.max_assets_per_load)
	{
		*(stream->bytes_left != WIRE_HASH_SIZE ? &ctx->hashes_bad : &ctx->assets_over_limit) = true;
		return pb_read(stream, NULL, stream->bytes_left);
	}
	if (ctx->hash_count == ctx->hash_capacity)
	{
		int capacity = ctx->hash_capacity > 0 ? 2 * ctx->hash_capacity : 16;
		uint8_t(*grown)[WIRE_HASH_SIZE] = realloc(ctx->hashes, (size_t)capacity * WIRE_HASH_SIZE);
		if (grown == NULL)
		{
			return false;
		}
		ctx->hashes = grown;
		ctx->hash_capacity = capacity;
	}
	if (!pb_read(stream, ctx->hashes[ctx->hash_count], WIRE_HASH_SIZE))
	{
		return false;
	}
	ctx->hash_count += 1;
	return true;
}

// Growing fields of a ClientMessage: Restore.data into one buffer, CreateArticulation.links one by one up
// to max_links_per_articulation (more are skipped and reported by the handler as LIMIT_REACHED).
static bool decode_hook(pb_istream_t* stream, const pb_field_iter_t* field, void* context)
{
	command_ctx* ctx = context;
	if (field->descriptor == &sinew_v1_Restore_msg && field->tag == sinew_v1_Restore_data_tag)
	{
		size_t size = stream->bytes_left;
		free(ctx->bytes);
		ctx->bytes = malloc(size > 0 ? size : 1);
		ctx->bytes_size = 0;
		if (ctx->bytes == NULL || !pb_read(stream, ctx->bytes, size))
		{
			return false;
		}
		ctx->bytes_size = size;
		return true;
	}
	if (field->descriptor == &sinew_v1_CreateArticulation_msg && field->tag == sinew_v1_CreateArticulation_links_tag)
	{
		if (ctx->link_count >= ctx->srv->config.limits.max_links_per_articulation)
		{
			ctx->links_over_limit = true;
			return true; // nanopb skips the element
		}
		if (ctx->link_count == ctx->link_capacity)
		{
			int capacity = ctx->link_capacity > 0 ? 2 * ctx->link_capacity : 16;
			sinew_v1_LinkDef* links = realloc(ctx->links, (size_t)capacity * sizeof(sinew_v1_LinkDef));
			if (links == NULL)
			{
				return false;
			}
			ctx->links = links;
			ctx->link_capacity = capacity;
		}
		sinew_v1_LinkDef* link = ctx->links + ctx->link_count;
		*link = (sinew_v1_LinkDef)sinew_v1_LinkDef_init_zero;
		if (!pb_decode(stream, sinew_v1_LinkDef_fields, link))
		{
			return false;
		}
		ctx->link_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_LoadUrdf_msg && field->tag == sinew_v1_LoadUrdf_urdf_tag)
	{
		return read_all_bytes(stream, ctx);
	}
	if (field->descriptor == &sinew_v1_LoadUrdf_msg && field->tag == sinew_v1_LoadUrdf_assets_tag)
	{
		return decode_asset(stream, ctx);
	}
	if (field->descriptor == &sinew_v1_Asset_msg && field->tag == sinew_v1_Asset_data_tag)
	{
		return decode_asset_data(stream, ctx);
	}
	if (field->descriptor == &sinew_v1_FindAssets_msg && field->tag == sinew_v1_FindAssets_sha256_tag)
	{
		return decode_hash(stream, ctx);
	}
	if (field->descriptor == &sinew_v1_PutAsset_msg && field->tag == sinew_v1_PutAsset_data_tag)
	{
		if ((int64_t)stream->bytes_left > ctx->srv->config.limits.max_asset_bytes)
		{
			ctx->bytes_over_limit = true;
			return pb_read(stream, NULL, stream->bytes_left);
		}
		// Straight into a blob: the store keeps it as it is, without a copy.
		asset_blob_unref(ctx->put_blob);
		ctx->put_blob = asset_blob_new(ASSET_FILE, stream->bytes_left);
		return ctx->put_blob != NULL && pb_read(stream, ctx->put_blob->data, ctx->put_blob->size);
	}
	if ((field->descriptor == &sinew_v1_CreateBody_msg && field->tag == sinew_v1_CreateBody_shapes_tag) ||
		(field->descriptor == &sinew_v1_LinkDef_msg && field->tag == sinew_v1_LinkDef_shapes_tag))
	{
		// A link's shapes arrive while the link decodes: it is links[link_count] until it is counted.
		bool link = field->descriptor == &sinew_v1_LinkDef_msg;
		return shape_list_decode(&ctx->shapes, stream, link ? ctx->link_count : 0);
	}
	bool handled = false;
	bool ok = shape_list_decode_geometry(&ctx->shapes, stream, field, &handled);
	if (handled)
	{
		return ok;
	}
	if (field->descriptor == &sinew_v1_LoadUrdf_msg && field->tag == sinew_v1_LoadUrdf_drives_tag)
	{
		sinew_v1_JointDrive* slot = grow_entry((void**)&ctx->urdf_drives, &ctx->urdf_drive_count,
											   &ctx->urdf_drive_capacity, sizeof(sinew_v1_JointDrive), ctx);
		if (slot == NULL)
		{
			return ctx->urdf_over_limit; // skipped past the limit (true), or out of memory (false)
		}
		*slot = (sinew_v1_JointDrive)sinew_v1_JointDrive_init_zero;
		if (!pb_decode(stream, sinew_v1_JointDrive_fields, slot))
		{
			return false;
		}
		ctx->urdf_drive_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_LoadUrdf_msg && field->tag == sinew_v1_LoadUrdf_initial_tag)
	{
		sinew_v1_JointValue* slot = grow_entry((void**)&ctx->urdf_initial, &ctx->urdf_initial_count,
											   &ctx->urdf_initial_capacity, sizeof(sinew_v1_JointValue), ctx);
		if (slot == NULL)
		{
			return ctx->urdf_over_limit; // skipped past the limit (true), or out of memory (false)
		}
		*slot = (sinew_v1_JointValue)sinew_v1_JointValue_init_zero;
		if (!pb_decode(stream, sinew_v1_JointValue_fields, slot))
		{
			return false;
		}
		ctx->urdf_initial_count += 1;
		return true;
	}
	return true;
}

static command_ctx* ctx_new(session* s)
{
	command_ctx* ctx = malloc(sizeof(command_ctx));
	if (ctx == NULL)
	{
		return NULL;
	}
	ctx->srv = s->srv;
	ctx->session = s;
	ctx->request_id = 0;
	ctx->index = -1;
	ctx->host = NULL;
	ctx->world_role = sinew_v1_Role_ROLE_UNSPECIFIED;
	ctx->reply = (sinew_v1_Reply)sinew_v1_Reply_init_zero;
	ctx->detail[0] = '\0';
	ctx->deferred = false;
	ctx->bytes = NULL;
	ctx->bytes_size = 0;
	ctx->links = NULL;
	ctx->link_count = 0;
	ctx->link_capacity = 0;
	ctx->links_over_limit = false;
	ctx->urdf_drives = NULL;
	ctx->urdf_drive_count = 0;
	ctx->urdf_drive_capacity = 0;
	ctx->urdf_initial = NULL;
	ctx->urdf_initial_count = 0;
	ctx->urdf_initial_capacity = 0;
	ctx->urdf_over_limit = false;
	ctx->assets = NULL;
	ctx->asset_count = 0;
	ctx->asset_capacity = 0;
	ctx->assets_over_limit = false;
	ctx->hashes = NULL;
	ctx->hash_count = 0;
	ctx->hash_capacity = 0;
	ctx->hashes_bad = false;
	ctx->bytes_over_limit = false;
	ctx->put_blob = NULL;
	memset(&ctx->shapes, 0, sizeof(ctx->shapes));
	ctx->shapes.max_per_owner = (int)s->srv->config.limits.max_shapes_per_body;
	ctx->reply_scratch = NULL;
	ctx->reply_scratch_free = NULL;
	return ctx;
}

static void ctx_free(command_ctx* ctx)
{
	if (ctx->reply_scratch_free != NULL)
	{
		ctx->reply_scratch_free(ctx->reply_scratch);
	}
	free(ctx->bytes);
	free(ctx->links);
	free(ctx->urdf_drives);
	free(ctx->urdf_initial);
	for (int i = 0; i < ctx->asset_count; ++i)
	{
		asset_blob_unref(ctx->assets[i].data);
	}
	free(ctx->assets);
	free(ctx->hashes);
	asset_blob_unref(ctx->put_blob);
	shape_list_free(&ctx->shapes);
	free(ctx);
}

// ---- the gate -----------------------------------------------------------------------------------------

static void finish(command_ctx* ctx, int32_t code)
{
	if (ctx->index >= 0)
	{
		metrics_count_command(&ctx->srv->metrics, ctx->index, code);
	}
	if (code != 0 && log_get_level() <= LOG_DEBUG)
	{
		char quoted[300];
		log_debug("command failed", "session=%llu command=%s code=%s detail=%s", (unsigned long long)ctx->session->id,
				  command_name(ctx->index), sv_error_name(code), log_quote(quoted, sizeof(quoted), ctx->detail));
	}
	session_reply(ctx->session, ctx->request_id, code, ctx->detail, code == 0 ? &ctx->reply : NULL);
}

// Names of the fields on the way to every string of a ClientMessage, for the errors of the string check
// (nanopb's descriptors carry numbers only; its field lists carry the names). A string field added to
// another message is checked all the same and named by its number.
typedef struct field_name
{
	const pb_msgdesc_t* message;
	uint32_t tag;
	const char* name;
} field_name;

#define FIELD_NAME_(message, atype, htype, ltype, name, tag) { &message##_msg, tag, #name },
// clang-format off
static const field_name field_names[] = {
	sinew_v1_Handshake_FIELDLIST(FIELD_NAME_, sinew_v1_Handshake)
	sinew_v1_CreateWorld_FIELDLIST(FIELD_NAME_, sinew_v1_CreateWorld)
	sinew_v1_CloneWorld_FIELDLIST(FIELD_NAME_, sinew_v1_CloneWorld)
	sinew_v1_LoadUrdf_FIELDLIST(FIELD_NAME_, sinew_v1_LoadUrdf)
	sinew_v1_JointDrive_FIELDLIST(FIELD_NAME_, sinew_v1_JointDrive)
	sinew_v1_JointValue_FIELDLIST(FIELD_NAME_, sinew_v1_JointValue)
	sinew_v1_Asset_FIELDLIST(FIELD_NAME_, sinew_v1_Asset)
};
// clang-format on
#undef FIELD_NAME_

// "load_urdf.drives.joint" for a fault's path.
static void fault_path(const wire_string_fault* fault, char* out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (int d = 0; d < fault->depth && n < cap; ++d)
	{
		const char* name = NULL;
		if (d == 0 && fault->message[0] == &sinew_v1_ClientMessage_msg)
		{
			int index = command_index((pb_size_t)fault->tag[0]);
			name = index >= 0 ? command_name(index) : NULL;
		}
		for (size_t i = 0; name == NULL && i < sizeof(field_names) / sizeof(field_names[0]); ++i)
		{
			if (field_names[i].message == fault->message[d] && field_names[i].tag == fault->tag[d])
			{
				name = field_names[i].name;
			}
		}
		int w = name != NULL ? snprintf(out + n, cap - n, "%s%s", d > 0 ? "." : "", name)
							 : snprintf(out + n, cap - n, "%sfield %u", d > 0 ? "." : "", (unsigned)fault->tag[d]);
		n += w > 0 ? (size_t)w : 0;
	}
}

// A message that cannot be taken: BAD_MESSAGE for its request id (if that much decoded), and the close
// of a session that has not shaken hands (its first message must be a handshake).
static void refuse_message(command_ctx* ctx, const char* first_reason)
{
	session* s = ctx->session;
	ctx->request_id = ctx->msg.request_id;
	finish(ctx, SV_ERR_BAD_MESSAGE);
	if (s->state == SESSION_NEW)
	{
		session_close(s, SV_ERR_BAD_MESSAGE, first_reason);
	}
	ctx_free(ctx);
}

// Decode, check, and run or queue one command. `queued_host` is the host whose FIFO it came from.
static void execute(session* s, const uint8_t* data, size_t size, world_host* queued_host)
{
	command_ctx* ctx = ctx_new(s);
	if (ctx == NULL)
	{
		session_reply(s, 0, SN_ERR_NO_MEMORY, "out of memory", NULL);
		return;
	}
	const char* why = NULL;
	ctx->msg = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	// Growing fields of a command the message replaced are not its own (wire_oneof_run).
	const size_t run = wire_oneof_run(sinew_v1_ClientMessage_fields, &ctx->msg, data, size);
	if (!wire_decode_from(sinew_v1_ClientMessage_fields, &ctx->msg, data, size, run, decode_hook, ctx, &why))
	{
		// The request id may have been decoded before the failure: answer it if so.
		cmd_fail(ctx, SV_ERR_BAD_MESSAGE, "the message could not be decoded: %s", why != NULL ? why : "unknown");
		refuse_message(ctx, "the first message could not be decoded");
		return;
	}
	// Every string, at every depth, is UTF-8 without NUL (wire.h): checked here, once, for every command.
	wire_string_fault fault;
	if (!wire_check_strings(sinew_v1_ClientMessage_fields, data, size, &fault))
	{
		char path[160];
		fault_path(&fault, path, sizeof(path));
		cmd_fail(ctx, SV_ERR_BAD_MESSAGE, "%s: %s at byte %zu (strings must be UTF-8 without NUL)", path,
				 fault.nul ? "a NUL" : "not valid UTF-8", fault.offset);
		refuse_message(ctx, "the first message has a string that is not valid UTF-8");
		return;
	}
	ctx->request_id = ctx->msg.request_id;
	ctx->index = command_index(ctx->msg.which_command);
	int32_t code = 0;
	const command_def* row = ctx->index >= 0 ? table + ctx->index : NULL;
	if (s->state == SESSION_NEW && (row == NULL || row->tag != sinew_v1_ClientMessage_handshake_tag))
	{
		// Whatever else comes first (no command, an unknown one, any other), the session ends.
		code = cmd_fail(ctx, SV_ERR_NOT_HANDSHAKEN, "the first message must be a handshake, got %s",
						row != NULL ? row->name : "no command this server knows");
		finish(ctx, code);
		session_close(s, SV_ERR_NOT_HANDSHAKEN, "the first message was not a handshake");
		ctx_free(ctx);
		return;
	}
	if (row == NULL)
	{
		code = cmd_fail(ctx, SV_ERR_UNKNOWN_COMMAND, "no command this server knows (oneof case %u)",
						(unsigned)ctx->msg.which_command);
	}
	else if (s->state == SESSION_READY && row->tag == sinew_v1_ClientMessage_handshake_tag)
	{
		code = cmd_fail(ctx, SV_ERR_ALREADY_HANDSHAKEN, "this session has already shaken hands");
	}
	else if ((row->flags & CMD_MUTATES) != 0 && s->role == sinew_v1_Role_ROLE_OBSERVER)
	{
		code = cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "%s: observer sessions cannot change anything", row->name);
	}
	else if ((row->flags & CMD_WORLD) != 0)
	{
		uint64_t world_id = row->world_of(&ctx->msg);
		world_host* host = server_world(s->srv, world_id);
		if (host == NULL || host->doomed)
		{
			code = cmd_fail(ctx, SV_ERR_UNKNOWN_WORLD, "%s: world %llu does not exist", row->name,
							(unsigned long long)world_id);
		}
		else
		{
			ctx->host = host;
			ctx->world_role = members_role(&host->members, s->id);
			if (ctx->world_role < row->world_role)
			{
				code = cmd_fail(ctx, SV_ERR_FORBIDDEN_BY_ROLE, "%s needs the %s role in world %llu; this session is %s",
								row->name, role_name(row->world_role), (unsigned long long)world_id,
								role_name(ctx->world_role));
			}
			else if ((row->flags & CMD_WAITS) != 0 && (host->busy || (queued_host != host && host->queue.head != NULL)))
			{
				// The world is stepping (or others wait before us): run when the step ends.
				char full[200];
				const int32_t queued = world_host_enqueue(host, s, data, size, full, sizeof(full));
				if (queued == SV_ERR_LIMIT_REACHED)
				{
					code = cmd_fail(ctx, queued, "%s: %s", row->name, full);
				}
				else if (queued != 0)
				{
					code = cmd_fail(ctx, queued, "could not queue the command");
				}
				else
				{
					ctx_free(ctx);
					return;
				}
			}
		}
	}
	if (code == 0 && row != NULL)
	{
		code = row->handler(ctx);
		if (code == 0 && (row->flags & CMD_MUTATES) != 0 && ctx->host != NULL)
		{
			persist_world_changed(ctx->host); // its next snapshot for the state directory is due
		}
	}
	if (!ctx->deferred)
	{
		finish(ctx, code);
	}
	ctx_free(ctx);
}

void command_receive(session* s, const uint8_t* data, size_t size)
{
	execute(s, data, size, NULL);
}

void command_run_queued(world_host* host, const queued_command* queued)
{
	session* s = server_session(host->srv, queued->session_id);
	if (s == NULL)
	{
		return; // the client left while its command waited
	}
	execute(s, queued->data, queued->size, host);
}

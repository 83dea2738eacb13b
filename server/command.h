// The command table: one row per ClientMessage.command oneof case, with its handler, the least role it
// needs in its world, and flags. One gate (command.c) checks, before any handler runs: the message
// decodes, the session state (handshake first, once), the command is known, an observer session does not
// mutate, the world exists and the session's role in it suffices, and the world is not stepping (else
// the command waits in the world's FIFO). Handlers then assume those hold and validate the rest (the
// core validates every number and object id and gives its typed error).
#ifndef SINEW_SERVER_COMMAND_H
#define SINEW_SERVER_COMMAND_H

#include "assets.h"
#include "session.h"
#include "shapes.h"
#include "sinew.pb.h"
#include "world_host.h"

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;

// One Asset of a LoadUrdf, as decoded.
typedef struct wire_asset
{
	char uri[512];
	uint8_t sha256[WIRE_HASH_SIZE];
	size_t sha256_size; // 0 (absent), 32, or another length (refused)
	asset_blob* data;   // its bytes (a reference); NULL when absent
	size_t data_size;
	bool has_data;
	bool too_large; // data above max_asset_bytes: skipped, refused by the handler
} wire_asset;

typedef struct command_ctx
{
	struct server* srv;
	session* session;
	uint64_t request_id;
	int index;                  // row in the table
	sinew_v1_ClientMessage msg; // decoded
	world_host* host;           // the named world (CMD_WORLD)
	sinew_v1_Role world_role;   // the session's role in it
	sinew_v1_Reply reply;       // the result the handler fills on success
	char detail[256];           // the handler's reason on failure
	bool deferred;              // the handler answers later (steps, lockstep)
	// Growing fields, decoded by the hook.
	uint8_t* bytes; // Restore.data
	size_t bytes_size;
	sinew_v1_LinkDef* links; // CreateArticulation.links
	int link_count;
	int link_capacity;
	bool links_over_limit;
	sinew_v1_JointDrive* urdf_drives; // LoadUrdf.drives
	int urdf_drive_count;
	int urdf_drive_capacity;
	sinew_v1_JointValue* urdf_initial; // LoadUrdf.initial
	int urdf_initial_count;
	int urdf_initial_capacity;
	bool urdf_over_limit; // more than COMMAND_URDF_MAX_ENTRIES of either
	wire_asset* assets;   // LoadUrdf.assets
	int asset_count;
	int asset_capacity;
	bool assets_over_limit;            // more than max_assets_per_load: the rest were skipped
	uint8_t (*hashes)[WIRE_HASH_SIZE]; // FindAssets.sha256 (those of 32 bytes)
	int hash_count;
	int hash_capacity;
	bool hashes_bad;       // a hash that is not 32 bytes (more than max_assets_per_load: assets_over_limit)
	bool bytes_over_limit; // PutAsset.data above max_asset_bytes: not kept
	asset_blob* put_blob;  // PutAsset.data
	shape_list shapes;     // CreateBody.shapes, LinkDef.shapes, CreateShape's geometry arrays
	// Memory a handler's reply needs until it is encoded (freed after the reply).
	void* reply_scratch;
	void (*reply_scratch_free)(void*);
} command_ctx;

// LoadUrdf decodes at most this many drives and initial values (as many as the importer allows joints).
#define COMMAND_URDF_MAX_ENTRIES 1024

typedef int32_t (*command_handler)(command_ctx* ctx);

enum command_flags
{
	CMD_WORLD = 1u,   // names a world: the gate resolves it and checks world_role
	CMD_WAITS = 2u,   // touches the core world: waits while it steps
	CMD_MUTATES = 4u, // changes server state: refused to observer sessions
};

typedef struct command_def
{
	pb_size_t tag; // sinew_v1_ClientMessage_*_tag
	const char* name;
	command_handler handler;
	sinew_v1_Role world_role; // least role in the world (CMD_WORLD)
	unsigned flags;
	uint64_t (*world_of)(const sinew_v1_ClientMessage* message);
} command_def;

// A whole message from a session (session_receive).
void command_receive(session* s, const uint8_t* data, size_t size);
// A command that waited in host's FIFO runs now (world idle).
void command_run_queued(world_host* host, const queued_command* queued);

int command_count(void);
const char* command_name(int index);
// Row of a oneof tag, or -1.
int command_index(pb_size_t tag);

// For handlers: record a reason and return code.
int32_t cmd_fail(command_ctx* ctx, int32_t code, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
// A core call failed: its typed error with the world's detail line.
int32_t cmd_core(command_ctx* ctx, sn_error error);

// The handlers (handlers_*.c).
int32_t handle_handshake(command_ctx* ctx);
int32_t handle_ping(command_ctx* ctx);
int32_t handle_create_world(command_ctx* ctx);
int32_t handle_destroy_world(command_ctx* ctx);
int32_t handle_list_worlds(command_ctx* ctx);
int32_t handle_clone_world(command_ctx* ctx);
int32_t handle_configure_world(command_ctx* ctx);
int32_t handle_join_world(command_ctx* ctx);
int32_t handle_set_controller_key(command_ctx* ctx);
int32_t handle_leave_world(command_ctx* ctx);
int32_t handle_set_time_mode(command_ctx* ctx);
int32_t handle_step(command_ctx* ctx);
int32_t handle_snapshot(command_ctx* ctx);
int32_t handle_restore(command_ctx* ctx);
int32_t handle_reset(command_ctx* ctx);
int32_t handle_create_body(command_ctx* ctx);
int32_t handle_destroy_body(command_ctx* ctx);
int32_t handle_create_joint(command_ctx* ctx);
int32_t handle_destroy_joint(command_ctx* ctx);
int32_t handle_create_articulation(command_ctx* ctx);
int32_t handle_destroy_articulation(command_ctx* ctx);
int32_t handle_create_mimic(command_ctx* ctx);
int32_t handle_destroy_mimic(command_ctx* ctx);
int32_t handle_load_urdf(command_ctx* ctx);
int32_t handle_describe_world(command_ctx* ctx);
int32_t handle_set_drive_targets(command_ctx* ctx);
int32_t handle_set_joint_state(command_ctx* ctx);
int32_t handle_set_body_state(command_ctx* ctx);
int32_t handle_apply_forces(command_ctx* ctx);
int32_t handle_lockstep_input(command_ctx* ctx);
int32_t handle_subscribe(command_ctx* ctx);
int32_t handle_unsubscribe(command_ctx* ctx);
int32_t handle_get_state(command_ctx* ctx);
int32_t handle_create_shape(command_ctx* ctx);
int32_t handle_destroy_shape(command_ctx* ctx);
int32_t handle_find_assets(command_ctx* ctx);
int32_t handle_put_asset(command_ctx* ctx);
int32_t handle_get_mesh(command_ctx* ctx);

// Shapes with a hull or a triangle mesh are built off the loop (a quickhull of many points, a mesh's
// bounding volume hierarchy take up to seconds): a world job creates them, and CreateBody's body, all or
// nothing, and answers with Created. Primitives alone are built at once, on the loop.
bool cmd_shapes_heavy(const shape_list* list);

// Shapes [first, first + count) of the command's list (first -1: CreateShape's one shape) go on body
// (a null id with new_body: the body the job creates). label starts the reasons ("create body: shapes").
typedef struct shape_group
{
	sn_body_id body;
	int first;
	int count;
	char label[64];
} shape_group;

// Start the job (the command's shapes move into it; the handler returns 0 and is answered later).
// new_body: create this body first (CreateBody; density: its mass from its shapes, may be NULL). undo: an
// articulation made by the handler, destroyed if a shape fails. The reply is Created with created_id (the
// body's own when new_body; 0: the first shape's, for CreateShape), dof_count and the shapes' ids.
int32_t cmd_build_shapes_off_loop(command_ctx* ctx, const sn_body_def* new_body, const double* density,
								  const shape_group* groups, int group_count, sn_articulation_id undo,
								  uint64_t created_id, uint32_t dof_count);

// Encode Created.shape_ids from ids [0, count) (the array must live until the reply is encoded).
typedef struct created_shapes
{
	const sn_shape_id* ids;
	int count;
} created_shapes;
bool cmd_encode_shape_ids(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);

#endif

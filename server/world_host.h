// A hosted world: the core world, the step in progress and the commands waiting for it, and the parts
// the server keeps around it, each with one job and its own file: members and roles (members.h), time
// mode and pacing (pacing.h), lockstep (lockstep.h), subscriptions (stream.h), a controller of its own
// (controller.h) and the models its robots came from (model_registry.h).
//
// The one rule: while `busy` is true, the step in progress owns `world`; the loop thread does not touch
// it. Commands that need the world wait in the queue and run in arrival order when the step ends (before
// the next step starts). Readers that must not wait (the world list) use the cached copies. Every step
// ends in world_host_step_finished, on the loop thread: replies, events, frames, queued commands, then
// the next paced step.
#ifndef SINEW_SERVER_WORLD_HOST_H
#define SINEW_SERVER_WORLD_HOST_H

#include "controller.h"
#include "lockstep.h"
#include "members.h"
#include "model_registry.h"
#include "pacing.h"
#include "persist.h"
#include "sinew.pb.h"
#include "stepper.h"
#include "stream.h"

#include "sinew/sinew.h"

#include <uv.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;

// A command that arrived while the world was busy: its bytes, decoded again when it runs.
typedef struct queued_command
{
	struct queued_command* next;
	uint64_t session_id;
	size_t size;
	uint8_t data[];
} queued_command;

// What readers that must not wait (the world list, the per-world limits) see, also while a step runs:
// copied from the world when a step ends and after every change.
// What a step's cost depends on, as far as the server can see it cheaply.
typedef struct step_shape
{
	int bodies;
	int joints;
	int articulations;
	int links;
	int mimics;
	int shapes;
	int solver;
	int substeps;
	int position_iterations;
	int velocity_iterations;
} step_shape;

typedef struct world_cache
{
	double time;
	uint64_t step_count;
	double time_step; // s, for the real-time schedule (pacing.c)
	// The solver settings of the step's shape (world_host.c): the server changes them in one place
	// (ConfigureWorld), which refreshes them with world_host_refresh_settings.
	int solver;
	int substeps;
	int position_iterations;
	int velocity_iterations;
	int body_count;
	int joint_count;
	int articulation_count;
	int articulation_links; // links of all articulations (they count against max_bodies_per_world)
	int shape_count;        // collision shapes of bodies, links and the world
	int mimic_count;        // mimic joints
	bool diverged;
	bool divergence_reported;
} world_cache;

// Commands that wait for the step in progress, in arrival order.
typedef struct command_queue
{
	queued_command* head;
	queued_command* tail;
	int count;
	bool draining;
} command_queue;

// Contact and sensor begin/end events of the steps, for subscriptions that include them
// (INCLUDE_CONTACT_EVENTS): a ring the step in progress appends to (on its worker) and the loop reads
// from when it offers frames. Each subscription keeps the sequence number of the next record it is
// owed; records overwritten before it got them are counted as dropped in its next ContactEvents.
typedef struct contact_record
{
	uint64_t tick; // step count after the step
	sinew_v1_ContactChangeKind kind;
	sinew_v1_ContactSide a;
	sinew_v1_ContactSide b;
} contact_record;

typedef struct contact_log
{
	contact_record* records; // ring of `capacity` (4 x max_contact_events_per_frame), allocated when wanted
	int capacity;
	uint64_t head;   // records written since the world was created: the next one's sequence number
	int subscribers; // subscriptions that include contact events; 0: nothing is recorded
} contact_log;

// Record the last step's contact events into the log (the step's thread, while the host is busy).
void contact_log_record(contact_log* log, const sn_world* world);

// A job that owns a world off the loop as a step does (a LoadUrdf's parse, mesh reading and build): while it
// runs the host is busy and the world's commands wait in its queue. `run` runs on a worker and may change
// the world; `done` runs on the loop thread once the host is idle again (it replies, and frees the job);
// then the host goes on as after a step (queued commands, pacing). `done` finds host->doomed set if the
// world was destroyed meanwhile: it is destroyed right after.
typedef struct world_job world_job;
struct world_job
{
	uv_work_t work;
	struct world_host* host;
	void (*run)(world_job* job);
	void (*done)(world_job* job);
	// The job only reads the world (a flush's frames): its end neither refreshes the cache nor tells the
	// subscribers that the state changed.
	bool reads_only;
};

// A snapshot the host keeps: the state Reset returns to.
typedef struct kept_snapshot
{
	uint8_t* bytes; // owned
	size_t size;
} kept_snapshot;

typedef struct world_host
{
	struct server* srv;
	uint64_t id;
	char name[64];
	sn_world* world; // owned; while busy, the step in progress owns it
	// The step in progress, and the commands waiting for it.
	bool busy;
	step_item step;
	double step_ns_avg; // moving average of one step's wall time, ns
	// What step_ns_avg was measured on (objects and solver settings): only a step of a world of that
	// shape may run on the loop thread, so one that grew or got slower settings since never does.
	step_shape measured_shape;
	bool measured;
	uint64_t step_session; // the Step command being served (STEP_COMMAND)
	uint64_t step_request;
	command_queue queue;
	world_cache cached;
	kept_snapshot reset_point;
	// The parts, one job each.
	world_members members;       // owner, keep, members in join order (members.h)
	world_pacing pacing;         // time mode and real-time schedule (pacing.h)
	lockstep_state lockstep;     // the lockstep input timer (lockstep.h)
	world_subscriptions subs;    // subscriptions and their flush timer (stream.h)
	world_controller controller; // its own controller, if any: the demo robot's motion (controller.h)
	model_registry models;       // what its robots were built from (model_registry.h)
	contact_log contacts;        // contact events for subscriptions (above)
	world_persist persist;       // its file in the state directory, if kept (persist.h)
	// DestroyWorld is refused (ERR_PROTECTED): the demo world, unless sinewd runs with --allow-demo-destroy.
	bool destroy_protected;
	// The end: destroyed once the step in progress ends (doomed), then freed once its handles closed.
	bool doomed;
	char doom_reason[128];
	bool closed; // removed from the server
	int open_handles;
} world_host;

// Register a new hosted world around `world` (ownership passes to the host, also on failure). The
// state now becomes its reset point. Names are unique on a server: a non-empty name that another live
// world has gives ERR_NAME_TAKEN. Returns 0 or an error code with a detail line.
int32_t world_host_create(struct server* srv, sn_world* world, const char* name, uint64_t owner, bool keep,
						  world_host** out, char* detail, size_t detail_capacity);

// The same under a given id (a world restored from the state directory, persist.c; 0: a new id), and with
// a given reset point (a snapshot the caller has: ownership of its bytes passes to the host, also on
// failure; { NULL, 0 }: the state now, written here).
int32_t world_host_create_at(struct server* srv, sn_world* world, const char* name, uint64_t owner, bool keep,
							 uint64_t id, kept_snapshot reset, world_host** out, char* detail, size_t detail_capacity);
// The live world named `name` (not empty), or NULL.
world_host* world_host_find_name(const struct server* srv, const char* name);

// Destroy: tell members and subscribers (WorldDestroyed with reason), end subscriptions, answer what
// waits. If a step is in progress, this happens when it ends.
void world_host_destroy(world_host* host, const char* reason);

// A member leaves: its pending lockstep input is answered, then it is removed (members.h).
void world_host_remove_member(world_host* host, uint64_t session_id);
// Destroy the clients' kept worlds nobody has owned, joined or watched for kept_world_idle_ms (the
// server's own, the demo world, stay). Housekeeping calls it.
void world_host_expire_idle(struct server* srv, uint64_t now_ns);
// A session closed: drop its commands queued for busy worlds, leave its worlds, destroy the ones it owned
// unless they are kept.
void world_host_session_gone(struct server* srv, uint64_t session_id);

// True when the world may be touched now (no step in progress, nothing queued before).
bool world_host_idle(const world_host* host);
// Queue a command's bytes until the step ends. The copy counts in max_queued_bytes while it waits, and in
// its session's queued_bytes: the sessions of one client address hold at most half of max_queued_bytes.
// Returns 0, SV_ERR_LIMIT_REACHED (with `why`) or SN_ERR_NO_MEMORY.
int32_t world_host_enqueue(world_host* host, struct session* s, const uint8_t* data, size_t size, char* why,
						   size_t why_capacity);
// Run queued commands while the world is idle.
void world_host_drain(world_host* host);

// Send an event to the owner, the members and the subscribers of this world (each session once).
void world_host_broadcast(world_host* host, sinew_v1_Event* event);

// Refresh the cached copies of the world's settings (time step, solver, substeps, iterations) from the
// world (idle only); world_host_refresh does this too.
void world_host_refresh_settings(world_host* host);

// Refresh the cached copies from the world (idle only).
void world_host_refresh(world_host* host);
// Replace the core world (restore, reset): ownership of `world` passes to the host. Rebases the real-time
// schedule and clears the divergence report. Called from a job's end, whose caller then tells the
// subscribers and paces the world (world_host_start_job).
void world_host_replace_world(world_host* host, sn_world* world);
// Take a snapshot of the current state as the reset point. Returns 0 or NO_MEMORY.
int32_t world_host_set_reset_point(world_host* host);
// These snapshot bytes are the reset point now (ownership passes to the host).
void world_host_keep_reset_point(world_host* host, uint8_t* bytes, size_t size);

// Start a job (busy must be false): the host is busy until its done callback has run.
void world_host_start_job(world_host* host, world_job* job);

// Start a step of `steps` (busy must be false): inline if cheap and allowed, else on a worker.
void world_host_start_step(world_host* host, step_kind kind, uint32_t steps, uint64_t deadline_ns, bool allow_inline);
// The stepper's completion: runs on the loop thread after step_item_run.
void world_host_step_finished(world_host* host);

// Fill a WorldInfo for the world list (cached values only; never waits). `now_ns` is passed in so that
// the encoder's sizing and writing passes produce the same bytes.
void world_host_info(const world_host* host, uint64_t asking_session, uint64_t now_ns, sinew_v1_WorldInfo* info);

#endif

// The state directory (--state-dir): the worlds clients keep (keep_after_disconnect, or adopted) are
// written there, one file each, every state_snapshot_interval_ms when they changed and once more at
// shutdown, and read back at start with their names, ids, keepers, time settings, reset points and robot
// descriptions. A container restart, an upgrade or a moved pod loses at most the last interval.
//
// Writing is atomic: a new file is written under a temporary name, flushed to the disk (fsync), renamed
// over the old one, and the directory flushed, so a crash at any moment leaves the old file or the new
// one, never half of one. The world is serialised on the loop thread while it is idle (a step owns it
// otherwise: then right after the step); the writing, flushing and renaming run on the thread pool.
//
// A file that is corrupted, truncated, of another format or version, or whose world cannot be rebuilt is
// reported (a warning naming the file and why) and skipped: never fatal. A directory that cannot be
// created or written is (the operator asked for it).
//
// The file (little endian):
//   "SINEWKW2"                   magic (8 bytes): a kept world of format 2 ("SINEWKW1", format 1, still
//                                loads: it has no controller key; servers before format 2 skip format 2)
//   u64 world id                 u32 time mode, f64 rate, u32 lockstep timeout ms
//   u16 + name (UTF-8)           u16 + keeper's address (UTF-8)
//   u8 has key (0 or 1)          32 bytes: SHA-256 of the controller key (format 2 only)
//   u64 + core snapshot          the world (sn_world_snapshot_write: versioned by the core)
//   u64 + reset point            a core snapshot too
//   u32 models, each u32 kind, u64 object, u64 + bytes   (model_registry.h)
//   u64 FNV-1a 64 of everything before it
//
// The meshes a kept world's robots are drawn with (its UrdfModels name them by hash) are files of their
// own, "mesh-HASH.snms" in the mesh format: written once, before the first world file that names them;
// read back into the asset store with the worlds (a file that does not hash to its name is skipped: the
// visual is then described without its mesh); removed at start when no restored world names them.
#ifndef SINEW_SERVER_PERSIST_H
#define SINEW_SERVER_PERSIST_H

#include <stdbool.h>
#include <stdint.h>

struct server;
struct world_host;

// A world's part (world_host.persist).
typedef struct world_persist
{
	bool dirty;              // a command changed it since its last snapshot
	uint64_t saved_steps;    // its step count at its last snapshot
	bool saved;              // a file of it exists (or is being written)
	bool wanted;             // a snapshot is due but the world was busy or being written
	bool writing;            // its file is being written
	uint64_t mesh_signature; // of the meshes its last save named (a change may leave mesh files unused)
} world_persist;

typedef struct persist persist;

// Open (creating it if missing) the state directory of the configuration, restore the worlds found there,
// and start the periodic snapshots. Does nothing without a state directory. Returns 0, or -1 if the
// directory cannot be created or written (logged).
int persist_start(struct server* srv);
// A command changed the world (the command gate calls it for every mutating command).
void persist_world_changed(struct world_host* host);
// The world's step ended: a snapshot that waited for it is taken now.
void persist_world_idle(struct world_host* host);
// The world is being destroyed (not by the server stopping): its file goes.
void persist_world_gone(struct world_host* host);
// Writes or removals still running (the end of shutdown waits for them).
bool persist_busy(const struct server* srv);
// The server is stopping, every step has ended: write every kept world now (on this thread, the loop
// having nothing else to do), and stop the periodic snapshots.
void persist_final(struct server* srv);
// Free what is left (after the loop ended).
void persist_free(struct server* srv);

#endif

// The state directory: kept worlds written atomically and restored at start (see persist.h).
#include "persist.h"

#include "content.h"
#include "log.h"
#include "model_registry.h"
#include "pacing.h"
#include "server.h"
#include "wire.h"
#include "world_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Version 2 adds the controller key's digest after the keeper; version 1 files (no key) still load.
#define FILE_MAGIC "SINEWKW2"
#define FILE_MAGIC_V1 "SINEWKW1"
#define FILE_PREFIX "world-"
#define FILE_SUFFIX ".sinew"
#define TMP_MARK ".tmp-"
// The meshes kept worlds' robots are drawn with, one file each, named by content hash: written once,
// read back with the worlds that name them, removed at start when no restored world does, and while the
// server runs by a sweep (below) once a world that named them is gone or names others.
#define MESH_PREFIX "mesh-"
#define MESH_SUFFIX ".snms"

enum
{
	MAGIC_SIZE = 8,
	// A state file larger than this is not read: far above any world the limits allow (a 20,000-body
	// world's snapshot takes a few MB), so only a file that is not ours reaches it.
	MAX_FILE_BYTES = 1 << 30,
	MAX_MODELS = 1 << 20
};

// A mesh file to write with a world's file, if it is not there yet.
typedef struct mesh_file
{
	asset_blob* blob; // a reference held for the write
	char path[600];
	char tmp[640];
} mesh_file;

typedef struct persist_job
{
	uv_work_t work;
	persist* owner;
	uint64_t world_id;
	mesh_file* meshes;
	int mesh_count;
	bool remove; // remove the world's file instead of writing it
	bool sweep;  // remove the mesh files no kept world names (`keep`, sorted) instead
	uint8_t (*keep)[WIRE_HASH_SIZE];
	int keep_count;
	bool remove_after; // the world was destroyed while its file was being written: remove it after
	uint8_t* bytes;
	size_t size;
	char path[600];
	char tmp[640];
	int error;          // errno of the step that failed, 0 if none
	const char* failed; // which step
	struct persist_job* next;
} persist_job;

struct persist
{
	server* srv;
	char dir[512];
	uv_timer_t timer;
	bool timer_open;
	bool stopping; // persist_final ran: worlds destroyed from now on keep their files
	persist_job* jobs;
	uint64_t sequence; // temporary file names
	// Mesh files may have lost the last world that named them: a sweep is due, at the next tick with no
	// job in flight. While it runs, saves wait (a save could write a file the sweep is about to remove).
	bool sweep_wanted;
	bool sweeping;
	_Atomic bool halt; // the final writes (persist_final) began: a sweep in progress stops removing
};

// ---- bytes --------------------------------------------------------------------------------------------

static uint64_t fnv1a(const uint8_t* p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; ++i)
	{
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

typedef struct writer
{
	uint8_t* p;
	size_t n;
} writer;

static void put(writer* w, const void* data, size_t size)
{
	memcpy(w->p + w->n, data, size);
	w->n += size;
}

static void put_u64(writer* w, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; ++i)
	{
		b[i] = (uint8_t)(v >> (8 * i));
	}
	put(w, b, 8);
}

static void put_u32(writer* w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(w, b, 4);
}

static void put_u16(writer* w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	put(w, b, 2);
}

static void put_f64(writer* w, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	put_u64(w, bits);
}

typedef struct reader
{
	const uint8_t* p;
	size_t n;
	size_t at;
	bool bad;
} reader;

static const uint8_t* take(reader* r, size_t size)
{
	if (r->bad || size > r->n - r->at)
	{
		r->bad = true;
		return NULL;
	}
	const uint8_t* p = r->p + r->at;
	r->at += size;
	return p;
}

static uint64_t get_u64(reader* r)
{
	const uint8_t* b = take(r, 8);
	uint64_t v = 0;
	for (int i = 0; b != NULL && i < 8; ++i)
	{
		v |= (uint64_t)b[i] << (8 * i);
	}
	return v;
}

static uint32_t get_u32(reader* r)
{
	const uint8_t* b = take(r, 4);
	return b == NULL ? 0 : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t get_u16(reader* r)
{
	const uint8_t* b = take(r, 2);
	return b == NULL ? 0 : (uint16_t)(b[0] | b[1] << 8);
}

static double get_f64(reader* r)
{
	uint64_t bits = get_u64(r);
	double v;
	memcpy(&v, &bits, 8);
	return v;
}

// A length-prefixed run of bytes (u64 length).
static const uint8_t* get_blob(reader* r, size_t* size)
{
	uint64_t n = get_u64(r);
	if (r->bad || n > r->n - r->at)
	{
		r->bad = true;
		*size = 0;
		return NULL;
	}
	*size = (size_t)n;
	return take(r, (size_t)n);
}

// ---- files --------------------------------------------------------------------------------------------

static void world_path(const persist* p, uint64_t world_id, char* out, size_t cap)
{
	snprintf(out, cap, "%s/" FILE_PREFIX "%016llx" FILE_SUFFIX, p->dir, (unsigned long long)world_id);
}

// Write bytes to path atomically: a temporary file, fsync, rename over path, fsync of the directory. 0, or
// errno with *failed naming the step.
static int write_file(const char* tmp, const char* path, const uint8_t* bytes, size_t size, const char* dir,
					  const char** failed)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
	{
		*failed = "open";
		return errno;
	}
	int error = 0;
	size_t done = 0;
	while (done < size)
	{
		ssize_t n = write(fd, bytes + done, size - done);
		if (n < 0 && errno == EINTR)
		{
			continue;
		}
		if (n <= 0)
		{
			error = n < 0 ? errno : EIO;
			*failed = "write";
			break;
		}
		done += (size_t)n;
	}
	if (error == 0 && fsync(fd) != 0)
	{
		error = errno;
		*failed = "fsync";
	}
	if (close(fd) != 0 && error == 0)
	{
		error = errno;
		*failed = "close";
	}
	if (error == 0 && rename(tmp, path) != 0)
	{
		error = errno;
		*failed = "rename";
	}
	if (error != 0)
	{
		unlink(tmp);
		return error;
	}
	// The rename itself is durable once the directory is.
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
	{
		if (fsync(dfd) != 0)
		{
			error = errno;
			*failed = "fsync of the directory";
		}
		close(dfd);
	}
	return error;
}

static void write_atomically(persist_job* job, const char* dir)
{
	// Its meshes first (content-addressed: one already there is the same), so that a world file never
	// names a mesh that is not on the disk.
	for (int i = 0; i < job->mesh_count && job->error == 0; ++i)
	{
		const mesh_file* m = job->meshes + i;
		if (access(m->path, F_OK) != 0)
		{
			job->error = write_file(m->tmp, m->path, m->blob->data, m->blob->size, dir, &job->failed);
		}
	}
	if (job->error == 0)
	{
		job->error = write_file(job->tmp, job->path, job->bytes, job->size, dir, &job->failed);
	}
}

static int by_hash(const void* a, const void* b)
{
	return memcmp(a, b, WIRE_HASH_SIZE);
}

static bool has_suffix(const char* s, const char* suffix);

// Remove the mesh files of `dir` that are left over from a write (temporary) or that `unused` says no
// world names. False if the directory cannot be read.
static bool remove_mesh_files(const char* dir, bool (*unused)(const uint8_t hash[WIRE_HASH_SIZE], const void* arg),
							  const void* arg)
{
	DIR* d = opendir(dir);
	if (d == NULL)
	{
		return false;
	}
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		const char* entry = e->d_name;
		size_t n = strlen(entry), k = strlen(MESH_PREFIX);
		uint8_t hash[WIRE_HASH_SIZE];
		if (strncmp(entry, MESH_PREFIX, k) != 0)
		{
			continue;
		}
		bool temporary = strstr(entry, MESH_SUFFIX TMP_MARK) != NULL;
		bool named = n == k + WIRE_HASH_HEX + strlen(MESH_SUFFIX) && has_suffix(entry, MESH_SUFFIX) &&
			wire_hash_parse(entry + k, WIRE_HASH_HEX, hash);
		if (temporary || (named && unused(hash, arg)))
		{
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dir, entry);
			unlink(path);
		}
	}
	closedir(d);
	return true;
}

static bool not_kept(const uint8_t hash[WIRE_HASH_SIZE], const void* arg)
{
	const persist_job* job = arg;
	return !atomic_load(&job->owner->halt) &&
		bsearch(hash, job->keep, (size_t)job->keep_count, WIRE_HASH_SIZE, by_hash) == NULL;
}

// Remove the mesh files (and leftover temporary ones) no kept world names.
static void sweep_meshes(persist_job* job, const char* dir)
{
	if (!remove_mesh_files(dir, not_kept, job))
	{
		job->error = errno;
		job->failed = "opendir";
	}
}

static void run_job(persist_job* job)
{
	if (job->sweep)
	{
		sweep_meshes(job, job->owner->dir);
		return;
	}
	if (job->remove)
	{
		if (unlink(job->path) != 0 && errno != ENOENT)
		{
			job->error = errno;
			job->failed = "unlink";
		}
		return;
	}
	write_atomically(job, job->owner->dir);
}

static void on_work(uv_work_t* work)
{
	run_job(work->data);
}

static void save_now(world_host* host);
static void save_due(persist* p);
static bool try_sweep(persist* p);
static void queue_job(persist* p, persist_job* job);
static void release_meshes(persist_job* job);

static void on_work_done(uv_work_t* work, int status)
{
	(void)status;
	persist_job* job = work->data;
	persist* p = job->owner;
	server* srv = p->srv;
	for (persist_job** link = &p->jobs; *link != NULL; link = &(*link)->next)
	{
		if (*link == job)
		{
			*link = job->next;
			break;
		}
	}
	if (job->error != 0)
	{
		srv->metrics.state_save_failures += 1;
		log_warn(job->remove ? "could not remove a world's state file" : "could not write a world's state file",
				 "world=%llu path=%s step=%s error=%s", (unsigned long long)job->world_id, job->path, job->failed,
				 strerror(job->error));
	}
	else if (!job->remove)
	{
		srv->metrics.state_saves += 1;
	}
	if (job->sweep)
	{
		p->sweeping = false;
		free(job->keep);
		free(job);
		save_due(p); // what waited for the sweep
		return;
	}
	world_host* host = server_world(srv, job->world_id);
	if (job->remove_after)
	{
		persist_job* removal = calloc(1, sizeof(persist_job));
		if (removal != NULL)
		{
			removal->remove = true;
			removal->world_id = job->world_id;
			snprintf(removal->path, sizeof(removal->path), "%s", job->path);
			queue_job(p, removal);
		}
	}
	else if (host != NULL && !job->remove)
	{
		host->persist.writing = false;
		if (host->persist.wanted && !host->busy && !p->stopping)
		{
			save_now(host);
		}
	}
	release_meshes(job);
	free(job->bytes);
	free(job);
	try_sweep(p); // the last write in flight ended
}

static void queue_job(persist* p, persist_job* job)
{
	job->owner = p;
	job->work.data = job;
	job->next = p->jobs;
	p->jobs = job;
	if (uv_queue_work(p->srv->loop, &job->work, on_work, on_work_done) != 0)
	{
		run_job(job);
		on_work_done(&job->work, 0);
	}
}

// ---- snapshots ----------------------------------------------------------------------------------------

static bool is_kept(const world_host* host)
{
	// Clients' kept worlds; the server's own (the demo world, no keeper) is made anew at start.
	return host->members.keep && host->members.keeper[0] != '\0' && !host->closed && !host->doomed;
}

// The world's file, in a new buffer (the world must be idle).
static uint8_t* serialize(const world_host* host, size_t* size)
{
	size_t snapshot = sn_world_snapshot_size(host->world);
	size_t name = strlen(host->name), keeper = strlen(host->members.keeper);
	size_t need = MAGIC_SIZE + 8 + 4 + 8 + 4 + 2 + name + 2 + keeper + 1 + WIRE_HASH_SIZE + 8 + snapshot + 8 +
		host->reset_point.size + 4;
	const model_registry* models = &host->models;
	for (int i = 0; i < models->count; ++i)
	{
		need += 4 + 8 + 8 + models->entries[i].size;
	}
	need += 8;
	writer w = { malloc(need), 0 };
	if (w.p == NULL)
	{
		return NULL;
	}
	put(&w, FILE_MAGIC, MAGIC_SIZE);
	put_u64(&w, host->id);
	put_u32(&w, (uint32_t)host->pacing.mode);
	put_f64(&w, host->pacing.rate);
	put_u32(&w, host->pacing.lockstep_timeout_ms);
	put_u16(&w, (uint16_t)name);
	put(&w, host->name, name);
	put_u16(&w, (uint16_t)keeper);
	put(&w, host->members.keeper, keeper);
	const uint8_t has_key = host->members.has_key ? 1 : 0;
	put(&w, &has_key, 1);
	put(&w, host->members.key_hash, WIRE_HASH_SIZE);
	put_u64(&w, snapshot);
	size_t written = 0;
	if (sn_world_snapshot_write(host->world, w.p + w.n, snapshot, &written) != SN_ERR_OK || written != snapshot)
	{
		free(w.p);
		return NULL;
	}
	w.n += snapshot;
	put_u64(&w, host->reset_point.size);
	put(&w, host->reset_point.bytes, host->reset_point.size);
	put_u32(&w, (uint32_t)models->count);
	for (int i = 0; i < models->count; ++i)
	{
		put_u32(&w, (uint32_t)models->entries[i].kind);
		put_u64(&w, models->entries[i].object);
		put_u64(&w, models->entries[i].size);
		put(&w, models->entries[i].bytes, models->entries[i].size);
	}
	put_u64(&w, fnv1a(w.p, w.n));
	*size = w.n;
	return w.p;
}

// The meshes a world's robots' descriptions name go with its file (each mesh file is written once).
static void attach_meshes(persist* p, const world_host* host, persist_job* job)
{
	int meshes = 0;
	for (int i = 0; i < host->models.count; ++i)
	{
		meshes += host->models.entries[i].kind == MODEL_URDF ? host->models.entries[i].blob_count : 0;
	}
	job->meshes = meshes > 0 ? calloc((size_t)meshes, sizeof(mesh_file)) : NULL;
	for (int i = 0; job->meshes != NULL && i < host->models.count; ++i)
	{
		const model_entry* e = host->models.entries + i;
		for (int k = 0; e->kind == MODEL_URDF && k < e->blob_count; ++k)
		{
			mesh_file* m = job->meshes + job->mesh_count++;
			char hex[WIRE_HASH_HEX + 1];
			wire_hash_hex(e->blobs[k]->hash, hex);
			snprintf(m->path, sizeof(m->path), "%s/" MESH_PREFIX "%s" MESH_SUFFIX, p->dir, hex);
			snprintf(m->tmp, sizeof(m->tmp), "%s" TMP_MARK "%llu", m->path, (unsigned long long)++p->sequence);
			asset_blob_ref(e->blobs[k]);
			m->blob = e->blobs[k];
		}
	}
}

static void release_meshes(persist_job* job)
{
	for (int i = 0; i < job->mesh_count; ++i)
	{
		asset_blob_unref(job->meshes[i].blob);
	}
	free(job->meshes);
	job->meshes = NULL;
	job->mesh_count = 0;
}

// Which meshes a world's robots name, in short (their count and the first bytes of their hashes): equal to
// its last save's when its file names the meshes it names now.
static uint64_t mesh_signature(const world_host* host)
{
	uint64_t signature = 0;
	for (int i = 0; i < host->models.count; ++i)
	{
		const model_entry* e = host->models.entries + i;
		for (int k = 0; e->kind == MODEL_URDF && k < e->blob_count; ++k)
		{
			uint64_t h;
			memcpy(&h, e->blobs[k]->hash, sizeof(h));
			signature += 1;
			signature ^= h;
		}
	}
	return signature;
}

static void save_now(world_host* host)
{
	persist* p = host->srv->persist;
	world_persist* wp = &host->persist;
	if (host->busy || wp->writing || p->sweeping)
	{
		wp->wanted = true;
		return;
	}
	persist_job* job = calloc(1, sizeof(persist_job));
	size_t size = 0;
	uint8_t* bytes = job != NULL ? serialize(host, &size) : NULL;
	if (bytes == NULL)
	{
		free(job);
		host->srv->metrics.state_save_failures += 1;
		log_warn("could not snapshot a world for the state directory", "world=%llu error=out of memory",
				 (unsigned long long)host->id);
		return;
	}
	job->world_id = host->id;
	job->bytes = bytes;
	job->size = size;
	world_path(p, host->id, job->path, sizeof(job->path));
	attach_meshes(p, host, job);
	// When the meshes it names change, a mesh file may have lost its last world.
	uint64_t signature = mesh_signature(host);
	p->sweep_wanted = p->sweep_wanted || (wp->saved && signature != wp->mesh_signature);
	wp->mesh_signature = signature;
	snprintf(job->tmp, sizeof(job->tmp), "%s" TMP_MARK "%llu", job->path, (unsigned long long)++p->sequence);
	wp->writing = true;
	wp->saved = true;
	wp->wanted = false;
	wp->dirty = false;
	wp->saved_steps = host->cached.step_count;
	queue_job(p, job);
}

static bool changed(const world_host* host)
{
	const world_persist* wp = &host->persist;
	return !wp->saved || wp->dirty || wp->saved_steps != host->cached.step_count;
}

// Start a sweep of the mesh files: the hashes every kept world's robots name are kept, the others go.
static bool start_sweep(persist* p)
{
	server* srv = p->srv;
	int count = 0;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		const world_host* host = srv->worlds.items[i];
		for (int e = 0; host != NULL && is_kept(host) && e < host->models.count; ++e)
		{
			count += host->models.entries[e].kind == MODEL_URDF ? host->models.entries[e].blob_count : 0;
		}
	}
	persist_job* job = calloc(1, sizeof(persist_job));
	uint8_t(*keep)[WIRE_HASH_SIZE] = job != NULL ? malloc((size_t)(count > 0 ? count : 1) * WIRE_HASH_SIZE) : NULL;
	if (keep == NULL)
	{
		free(job);
		return false;
	}
	int n = 0;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		const world_host* host = srv->worlds.items[i];
		for (int e = 0; host != NULL && is_kept(host) && e < host->models.count; ++e)
		{
			const model_entry* entry = host->models.entries + e;
			for (int k = 0; entry->kind == MODEL_URDF && k < entry->blob_count; ++k)
			{
				memcpy(keep[n++], entry->blobs[k]->hash, WIRE_HASH_SIZE);
			}
		}
	}
	qsort(keep, (size_t)n, WIRE_HASH_SIZE, by_hash);
	job->sweep = true;
	job->keep = keep;
	job->keep_count = n;
	p->sweep_wanted = false;
	p->sweeping = true;
	queue_job(p, job);
	return true;
}

// Save the kept worlds that changed or wait for a save.
static void save_due(persist* p)
{
	server* srv = p->srv;
	for (int i = 0; i < srv->worlds.high && !p->stopping; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host != NULL && is_kept(host) && (changed(host) || host->persist.wanted))
		{
			save_now(host);
		}
	}
}

// Whether every kept world's file names the meshes it names now: then the sweep keeps what the files
// name (a mesh dropped by a world since its last save stays until that world is saved again).
static bool meshes_saved(const persist* p)
{
	const server* srv = p->srv;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		const world_host* host = srv->worlds.items[i];
		if (host != NULL && is_kept(host) && mesh_signature(host) != host->persist.mesh_signature)
		{
			return false;
		}
	}
	return true;
}

// A sweep when one is due, nothing is being written, and the files name what the worlds do.
static bool try_sweep(persist* p)
{
	return p->sweep_wanted && !p->sweeping && !p->stopping && p->jobs == NULL && meshes_saved(p) && start_sweep(p);
}

static void on_timer(uv_timer_t* timer)
{
	persist* p = timer->data;
	if (try_sweep(p))
	{
		return; // the saves follow when it ends
	}
	if (p->sweep_wanted && !p->sweeping)
	{
		// Only the saves the sweep needs (worlds whose meshes changed); the others wait for it, or a
		// server whose saves take longer than the interval would never sweep.
		for (int i = 0; i < p->srv->worlds.high; ++i)
		{
			world_host* host = p->srv->worlds.items[i];
			if (host != NULL && is_kept(host) && mesh_signature(host) != host->persist.mesh_signature)
			{
				save_now(host);
			}
		}
		return;
	}
	save_due(p);
}

void persist_world_changed(world_host* host)
{
	host->persist.dirty = true;
}

void persist_world_idle(world_host* host)
{
	persist* p = host->srv->persist;
	if (p != NULL && !p->stopping && host->persist.wanted && is_kept(host))
	{
		save_now(host);
	}
}

void persist_world_gone(world_host* host)
{
	persist* p = host->srv->persist;
	if (p == NULL || p->stopping || !host->persist.saved)
	{
		return;
	}
	host->persist.saved = false;
	p->sweep_wanted = true; // the meshes it named may be named by no other kept world
	for (persist_job* job = p->jobs; job != NULL; job = job->next)
	{
		if (job->world_id == host->id && !job->remove)
		{
			job->remove_after = true; // after the write in flight, or it would bring the file back
			return;
		}
	}
	persist_job* job = calloc(1, sizeof(persist_job));
	if (job == NULL)
	{
		return;
	}
	job->remove = true;
	job->world_id = host->id;
	world_path(p, host->id, job->path, sizeof(job->path));
	queue_job(p, job);
}

bool persist_busy(const server* srv)
{
	return srv->persist != NULL && srv->persist->jobs != NULL;
}

static void on_timer_closed(uv_handle_t* handle)
{
	(void)handle;
}

void persist_final(server* srv)
{
	persist* p = srv->persist;
	if (p == NULL || p->stopping)
	{
		return;
	}
	p->stopping = true;
	atomic_store(&p->halt, true);
	if (p->timer_open)
	{
		uv_close((uv_handle_t*)&p->timer, on_timer_closed);
		p->timer_open = false;
	}
	uint64_t t0 = server_now_ns();
	int written = 0, failed = 0;
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host == NULL || !is_kept(host) || host->busy || !changed(host))
		{
			continue;
		}
		persist_job job;
		memset(&job, 0, sizeof(job));
		job.owner = p;
		job.world_id = host->id;
		job.bytes = serialize(host, &job.size);
		world_path(p, host->id, job.path, sizeof(job.path));
		snprintf(job.tmp, sizeof(job.tmp), "%s" TMP_MARK "%llu", job.path, (unsigned long long)++p->sequence);
		if (job.bytes == NULL)
		{
			job.error = ENOMEM;
			job.failed = "snapshot";
		}
		else
		{
			attach_meshes(p, host, &job);
			write_atomically(&job, p->dir);
			release_meshes(&job);
		}
		free(job.bytes);
		if (job.error != 0)
		{
			failed += 1;
			log_warn("could not write a world's state file", "world=%llu path=%s step=%s error=%s",
					 (unsigned long long)host->id, job.path, job.failed, strerror(job.error));
		}
		else
		{
			written += 1;
		}
	}
	srv->metrics.state_saves += (uint64_t)written;
	srv->metrics.state_save_failures += (uint64_t)failed;
	log_info("state directory written", "dir=%s worlds=%d failed=%d ms=%.1f", p->dir, written, failed,
			 (double)(server_now_ns() - t0) * 1e-6);
}

void persist_free(server* srv)
{
	free(srv->persist);
	srv->persist = NULL;
}

// ---- restoring ----------------------------------------------------------------------------------------

// ---- meshes -------------------------------------------------------------------------------------------

// The mesh hashes of a kept UrdfModel's visuals (decoded one visual at a time).
typedef struct mesh_hashes
{
	uint8_t (*hashes)[WIRE_HASH_SIZE];
	int count;
	int capacity;
} mesh_hashes;

static bool collect_visual(pb_istream_t* stream, const pb_field_iter_t* field, void* context)
{
	mesh_hashes* h = context;
	if (field->descriptor != &sinew_v1_UrdfModel_msg || field->tag != sinew_v1_UrdfModel_visuals_tag)
	{
		return true; // other growing fields: skipped
	}
	sinew_v1_UrdfVisual v = sinew_v1_UrdfVisual_init_zero;
	if (!pb_decode(stream, sinew_v1_UrdfVisual_fields, &v))
	{
		return false;
	}
	if (!v.has_mesh_ref || v.mesh_ref.hash.size != WIRE_HASH_SIZE)
	{
		return true;
	}
	if (h->count == h->capacity)
	{
		int capacity = h->capacity > 0 ? 2 * h->capacity : 16;
		uint8_t(*grown)[WIRE_HASH_SIZE] = realloc(h->hashes, (size_t)capacity * WIRE_HASH_SIZE);
		if (grown == NULL)
		{
			return false;
		}
		h->hashes = grown;
		h->capacity = capacity;
	}
	memcpy(h->hashes[h->count++], v.mesh_ref.hash.bytes, WIRE_HASH_SIZE);
	return true;
}

// Read a mesh file of the state directory into the asset store (it must hash to its name and be a mesh).
// The stored blob, or NULL.
static asset_blob* read_mesh(server* srv, const char* dir, const uint8_t hash[WIRE_HASH_SIZE])
{
	asset_blob* have = asset_store_find(&srv->assets, ASSET_MESH, hash);
	if (have != NULL)
	{
		return have;
	}
	char hex[WIRE_HASH_HEX + 1], path[700];
	wire_hash_hex(hash, hex);
	snprintf(path, sizeof(path), "%s/" MESH_PREFIX "%s" MESH_SUFFIX, dir, hex);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	asset_blob* blob = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		(uint64_t)st.st_size <= (uint64_t)srv->config.limits.max_asset_store_bytes)
	{
		blob = asset_blob_new(ASSET_MESH, (size_t)st.st_size);
		size_t got = 0;
		while (blob != NULL && got < blob->size)
		{
			ssize_t n = read(fd, blob->data + got, blob->size - got);
			if (n < 0 && errno == EINTR)
			{
				continue;
			}
			if (n <= 0)
			{
				break;
			}
			got += (size_t)n;
		}
		bool ok = blob != NULL && got == blob->size && asset_blob_hash(blob) &&
			memcmp(blob->hash, hash, WIRE_HASH_SIZE) == 0 && wire_mesh_check(blob->data, blob->size, NULL, NULL, 0);
		if (!ok)
		{
			asset_blob_unref(blob);
			blob = NULL;
			log_warn("mesh file skipped", "path=%s reason=\"not the mesh its name says\"", path);
		}
	}
	if (fd >= 0)
	{
		close(fd);
	}
	char why[200];
	asset_blob* stored = blob != NULL ? asset_store_put(&srv->assets, blob, why, sizeof(why)) : NULL;
	asset_blob_unref(blob);
	return stored;
}

// The meshes a kept description names, from the state directory into the store: references to them (the
// caller frees the array) in *out, their count returned.
static int restore_meshes(server* srv, const char* dir, const uint8_t* model, size_t size, asset_blob*** out)
{
	*out = NULL;
	mesh_hashes h = { NULL, 0, 0 };
	sinew_v1_UrdfModel decoded = sinew_v1_UrdfModel_init_zero;
	if (!wire_decode(sinew_v1_UrdfModel_fields, &decoded, model, size, collect_visual, &h, NULL) || h.count == 0)
	{
		free(h.hashes);
		return 0;
	}
	asset_blob** blobs = calloc((size_t)h.count, sizeof(asset_blob*));
	int n = 0;
	for (int i = 0; blobs != NULL && i < h.count; ++i)
	{
		asset_blob* b = read_mesh(srv, dir, h.hashes[i]);
		bool seen = false;
		for (int k = 0; k < n && !seen; ++k)
		{
			seen = blobs[k] == b;
		}
		if (b != NULL && !seen)
		{
			blobs[n++] = b;
		}
	}
	free(h.hashes);
	*out = blobs;
	return n;
}

static bool not_in_store(const uint8_t hash[WIRE_HASH_SIZE], const void* arg)
{
	return !asset_store_has(arg, ASSET_MESH, hash);
}

// Mesh files that no restored world names: removed (their worlds went, or never came back).
static void remove_unused_meshes(persist* p)
{
	remove_mesh_files(p->dir, not_in_store, &p->srv->assets);
}

static bool valid_text(const uint8_t* s, size_t n, size_t cap)
{
	return n < cap && wire_utf8_check(s, n) == n;
}

// Rebuild one world from a file's bytes; false with the reason if the file is not a kept world of ours.
static bool restore_world(server* srv, const char* file, const uint8_t* data, size_t size, char* why, size_t cap)
{
	const bool v1 = size >= MAGIC_SIZE && memcmp(data, FILE_MAGIC_V1, MAGIC_SIZE) == 0;
	if (size < MAGIC_SIZE || (!v1 && memcmp(data, FILE_MAGIC, MAGIC_SIZE) != 0))
	{
		snprintf(why, cap, "not a kept world of this server (its format is unknown)");
		return false;
	}
	if (size < MAGIC_SIZE + 8)
	{
		snprintf(why, cap, "truncated");
		return false;
	}
	reader r = { data, size - 8, MAGIC_SIZE, false };
	uint64_t sum = 0;
	for (int i = 0; i < 8; ++i)
	{
		sum |= (uint64_t)data[size - 8 + (size_t)i] << (8 * i);
	}
	if (sum != fnv1a(data, size - 8))
	{
		snprintf(why, cap, "corrupted (its checksum does not match)");
		return false;
	}
	uint64_t id = get_u64(&r);
	sinew_v1_TimeSettings t = sinew_v1_TimeSettings_init_zero;
	t.mode = (sinew_v1_TimeMode)get_u32(&r);
	t.has_rate = true;
	t.rate = get_f64(&r);
	t.has_lockstep_timeout_ms = true;
	t.lockstep_timeout_ms = get_u32(&r);
	size_t name_size = get_u16(&r);
	const uint8_t* name = take(&r, name_size);
	size_t keeper_size = get_u16(&r);
	const uint8_t* keeper = take(&r, keeper_size);
	const uint8_t* has_key = v1 ? NULL : take(&r, 1);
	const uint8_t* key_hash = v1 ? NULL : take(&r, WIRE_HASH_SIZE);
	size_t snapshot_size = 0, reset_size = 0;
	const uint8_t* snapshot = get_blob(&r, &snapshot_size);
	const uint8_t* reset = get_blob(&r, &reset_size);
	uint32_t model_count = get_u32(&r);
	if (r.bad || model_count > MAX_MODELS || (has_key != NULL && has_key[0] > 1))
	{
		snprintf(why, cap, "truncated or malformed");
		return false;
	}
	char name_text[64], keeper_text[64];
	if (!valid_text(name, name_size, sizeof(name_text)) || !valid_text(keeper, keeper_size, sizeof(keeper_text)) ||
		keeper_size == 0)
	{
		snprintf(why, cap, "its name or keeper is not valid");
		return false;
	}
	memcpy(name_text, name, name_size);
	name_text[name_size] = '\0';
	memcpy(keeper_text, keeper, keeper_size);
	keeper_text[keeper_size] = '\0';
	time_settings time = { sinew_v1_TimeMode_TIME_PAUSED, 1.0, (uint32_t)srv->config.limits.lockstep_timeout_ms };
	char detail[256];
	if (pacing_check(&t, time, &time, detail, sizeof(detail)) != 0)
	{
		snprintf(why, cap, "its time settings are not valid: %s", detail);
		return false;
	}
	// A world written by a sinewd of another snapshot format (an upgrade or a downgrade across a format
	// change) does not restore: say so rather than call it damaged. Its file stays where it is.
	uint32_t version = sn_snapshot_version(snapshot, snapshot_size);
	if (version != 0 && version != SN_SNAPSHOT_VERSION)
	{
		snprintf(why, cap,
				 "written in snapshot format %u by another version of sinewd; this one reads format %u only, so "
				 "kept worlds do not carry over a change of format",
				 (unsigned)version, (unsigned)SN_SNAPSHOT_VERSION);
		return false;
	}
	// The reset point must rebuild as well as the world does.
	sn_world* check = NULL;
	if (sn_world_create_from_snapshot(reset, reset_size, NULL, &check) != SN_ERR_OK)
	{
		snprintf(why, cap, "its reset point does not restore");
		return false;
	}
	sn_world_destroy(check);
	sn_world* world = NULL;
	sn_error err = sn_world_create_from_snapshot(snapshot, snapshot_size, NULL, &world);
	if (err != SN_ERR_OK)
	{
		snprintf(why, cap, "its world does not restore (%s)", sn_error_name(err));
		return false;
	}
	uint32_t tag = sn_world_get_def(world).id_tag;
	uint8_t* reset_copy = malloc(reset_size > 0 ? reset_size : 1);
	if (reset_copy == NULL)
	{
		sn_world_destroy(world);
		snprintf(why, cap, "out of memory for its reset point");
		return false;
	}
	memcpy(reset_copy, reset, reset_size);
	world_host* host = NULL;
	int32_t code = world_host_create_at(srv, world, name_text, 0, true, id, (kept_snapshot){ reset_copy, reset_size },
										&host, detail, sizeof(detail));
	if (code != 0)
	{
		snprintf(why, cap, "its world id %llu cannot be taken: %s", (unsigned long long)id, detail);
		return false;
	}
	// Files of older servers kept the peer's whole address: the client it is now (an IPv6 /64, ...).
	server_client_of(keeper_text, host->members.keeper, sizeof(host->members.keeper));
	if (has_key != NULL && key_hash != NULL && has_key[0] == 1)
	{
		host->members.has_key = true;
		memcpy(host->members.key_hash, key_hash, WIRE_HASH_SIZE);
	}
	if (tag > srv->next_id_tag)
	{
		srv->next_id_tag = tag; // new worlds' object ids stay apart from the restored ones'
	}
	for (uint32_t i = 0; i < model_count && !r.bad; ++i)
	{
		model_kind kind = (model_kind)get_u32(&r);
		uint64_t object = get_u64(&r);
		size_t model_size = 0;
		const uint8_t* model = get_blob(&r, &model_size);
		// Only kinds this server knows, and only descriptions of objects the world has.
		sinew_v1_UrdfModel check_model = sinew_v1_UrdfModel_init_zero;
		if (r.bad || kind != MODEL_URDF || !sn_articulation_is_valid(host->world, sn_articulation_id_load(object)) ||
			!wire_decode(sinew_v1_UrdfModel_fields, &check_model, model, model_size, NULL, NULL, NULL) ||
			!wire_check_strings(sinew_v1_UrdfModel_fields, model, model_size, NULL))
		{
			continue;
		}
		uint8_t* copy = malloc(model_size > 0 ? model_size : 1);
		if (copy != NULL)
		{
			memcpy(copy, model, model_size);
			// Its robot's meshes, from their files, into the store (held while the description is).
			asset_blob** meshes = NULL;
			int mesh_count = restore_meshes(srv, srv->persist->dir, model, model_size, &meshes);
			if (!model_registry_keep(&host->models, kind, object, copy, model_size, meshes, mesh_count))
			{
				free(copy);
			}
			free(meshes);
		}
	}
	host->persist.saved = true;
	host->persist.saved_steps = host->cached.step_count;
	pacing_set(host, time);
	srv->metrics.state_worlds_restored += 1;
	char quoted[96];
	log_info("world restored", "world=%llu name=%s keeper=%s steps=%llu file=%s", (unsigned long long)host->id,
			 log_quote(quoted, sizeof(quoted), host->name), host->members.keeper,
			 (unsigned long long)host->cached.step_count, file);
	return true;
}

static bool has_suffix(const char* s, const char* suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

// Every file of ours in the directory: worlds restored, leftovers of writes a crash cut short removed.
static void restore_all(persist* p)
{
	DIR* d = opendir(p->dir);
	if (d == NULL)
	{
		return;
	}
	int restored = 0, skipped = 0;
	struct dirent* e;
	while ((e = readdir(d)) != NULL)
	{
		const char* entry = e->d_name;
		if (strncmp(entry, FILE_PREFIX, strlen(FILE_PREFIX)) != 0)
		{
			continue; // not ours
		}
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", p->dir, entry);
		if (strstr(entry, FILE_SUFFIX TMP_MARK) != NULL)
		{
			log_info("removing an unfinished state file", "path=%s", path);
			unlink(path);
			continue;
		}
		if (!has_suffix(entry, FILE_SUFFIX))
		{
			continue;
		}
		char why[320] = "";
		bool ok = false;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		{
			snprintf(why, sizeof(why), "cannot be read (%s)", strerror(errno));
		}
		else if (st.st_size > MAX_FILE_BYTES)
		{
			snprintf(why, sizeof(why), "larger than %d bytes", MAX_FILE_BYTES);
		}
		else
		{
			size_t size = (size_t)st.st_size;
			uint8_t* data = malloc(size > 0 ? size : 1);
			size_t got = 0;
			while (data != NULL && got < size)
			{
				ssize_t n = read(fd, data + got, size - got);
				if (n < 0 && errno == EINTR)
				{
					continue;
				}
				if (n <= 0)
				{
					break;
				}
				got += (size_t)n;
			}
			if (data == NULL || got != size)
			{
				snprintf(why, sizeof(why), "cannot be read whole");
			}
			else
			{
				ok = restore_world(p->srv, entry, data, size, why, sizeof(why));
			}
			free(data);
		}
		if (fd >= 0)
		{
			close(fd);
		}
		if (ok)
		{
			restored += 1;
		}
		else
		{
			skipped += 1;
			char quoted[400];
			log_warn("state file skipped", "path=%s reason=%s", path, log_quote(quoted, sizeof(quoted), why));
		}
	}
	closedir(d);
	remove_unused_meshes(p);
	log_info("state directory read", "dir=%s worlds=%d skipped=%d", p->dir, restored, skipped);
}

int persist_start(server* srv)
{
	const char* dir = srv->config.state_dir;
	if (dir[0] == '\0')
	{
		return 0;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
	{
		log_error("cannot create the state directory", "dir=%s error=%s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, R_OK | W_OK | X_OK) != 0)
	{
		log_error("cannot write the state directory", "dir=%s error=%s", dir, strerror(errno));
		return -1;
	}
	persist* p = calloc(1, sizeof(persist));
	if (p == NULL)
	{
		return -1;
	}
	p->srv = srv;
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	srv->persist = p;
	restore_all(p);
	uint64_t interval = (uint64_t)srv->config.limits.state_snapshot_interval_ms;
	uv_timer_init(srv->loop, &p->timer);
	p->timer.data = p;
	uv_timer_start(&p->timer, on_timer, interval, interval);
	// The periodic snapshots alone do not keep the loop running.
	uv_unref((uv_handle_t*)&p->timer);
	p->timer_open = true;
	return 0;
}

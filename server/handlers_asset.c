// Handlers for model assets and meshes, named by SHA-256 (assets.h): FindAssets says which files the
// server lacks, PutAsset keeps one (hashed on a worker: a file may be 16 MiB), GetMesh sends a mesh in the
// mesh format, in chunks that fit a message.
//
// The dedupe protocol a client follows to load a robot: hash every file the URDF names; FindAssets with
// those hashes; PutAsset each missing one; LoadUrdf naming every file by URI and hash. A second load of
// the same robot finds nothing missing and sends no file. The store drops files nobody uses when it is
// full, so a file may go missing between FindAssets and LoadUrdf: LoadUrdf then says ERR_UNKNOWN_ASSET and
// the client puts it again.
#include "command.h"
#include "errors.h"
#include "server.h"

#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The most bytes of a mesh one GetMesh reply carries: 4 MiB, well under the default max_message_bytes (16
// MiB), which bounds what clients accept (less when the server's is set lower).
#define MESH_CHUNK_BYTES ((size_t)4 << 20)

// ---- FindAssets ---------------------------------------------------------------------------------------

typedef struct missing_list
{
	int count;
	uint8_t (*hashes)[WIRE_HASH_SIZE];
} missing_list;

static bool encode_missing(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const missing_list* m = *arg;
	for (int i = 0; i < m->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_string(stream, m->hashes[i], WIRE_HASH_SIZE))
		{
			return false;
		}
	}
	return true;
}

int32_t handle_find_assets(command_ctx* ctx)
{
	const server_limits* l = &ctx->srv->config.limits;
	if (ctx->hashes_bad)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "find assets: a sha256 is not 32 bytes");
	}
	if (ctx->assets_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "find assets: more than max_assets_per_load (%lld) hashes",
						(long long)l->max_assets_per_load);
	}
	missing_list* m = malloc(sizeof(missing_list) + 1);
	if (m == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	// The missing ones are compacted in place in the decoded array, which lives until the reply is encoded.
	m->count = 0;
	m->hashes = ctx->hashes;
	for (int i = 0; i < ctx->hash_count; ++i)
	{
		// Asking counts as a use: a file about to be named by a load is the last to be dropped.
		if (asset_store_find(&ctx->srv->assets, ASSET_FILE, ctx->hashes[i]) == NULL)
		{
			memmove(m->hashes[m->count++], ctx->hashes[i], WIRE_HASH_SIZE);
		}
	}
	ctx->reply_scratch = m;
	ctx->reply_scratch_free = free;
	ctx->reply.which_result = sinew_v1_Reply_assets_tag;
	ctx->reply.result.assets.missing.funcs.encode = encode_missing;
	ctx->reply.result.assets.missing.arg = m;
	return 0;
}

// ---- PutAsset -----------------------------------------------------------------------------------------

typedef struct put_job
{
	uv_work_t work;
	server* srv;
	uint64_t session_id;
	uint64_t request_id;
	asset_blob* blob;
	bool has_claim;
	uint8_t claim[WIRE_HASH_SIZE];
	bool hashed;
} put_job;

static void reply_stored(server* srv, uint64_t session_id, uint64_t request_id, const asset_blob* blob)
{
	sinew_v1_Reply reply = sinew_v1_Reply_init_zero;
	reply.which_result = sinew_v1_Reply_asset_tag;
	reply.result.asset.sha256.size = WIRE_HASH_SIZE;
	memcpy(reply.result.asset.sha256.bytes, blob->hash, WIRE_HASH_SIZE);
	reply.result.asset.size = blob->size;
	session_reply_to(srv, session_id, request_id, 0, NULL, &reply);
}

static void put_run(uv_work_t* work)
{
	put_job* job = work->data;
	job->hashed = asset_blob_hash(job->blob);
}

static void put_after(uv_work_t* work, int status)
{
	(void)status;
	put_job* job = work->data;
	server* srv = job->srv;
	srv->stepper.jobs_in_flight -= 1;
	session* s = server_session(srv, job->session_id);
	if (s != NULL && s->holding > 0)
	{
		s->holding -= 1; // its next commands may run once this one is answered (below)
	}
	int index = command_index(sinew_v1_ClientMessage_put_asset_tag);
	char why[256] = "";
	int32_t code = 0;
	asset_blob* stored = NULL;
	if (!job->hashed)
	{
		code = SV_ERR_INTERNAL;
		snprintf(why, sizeof(why), "put asset: the file could not be hashed");
	}
	else if (job->has_claim && memcmp(job->claim, job->blob->hash, WIRE_HASH_SIZE) != 0)
	{
		code = SN_ERR_INVALID_ARGUMENT;
		char got[WIRE_HASH_HEX + 1];
		wire_hash_hex(job->blob->hash, got);
		snprintf(why, sizeof(why), "put asset: sha256 is not the data's (the data's is %s)", got);
	}
	else
	{
		char reason[200];
		stored = asset_store_put(&srv->assets, job->blob, reason, sizeof(reason));
		if (stored == NULL)
		{
			code = SV_ERR_LIMIT_REACHED;
			snprintf(why, sizeof(why), "put asset: %s", reason);
		}
	}
	metrics_count_command(&srv->metrics, index, code);
	if (code == 0)
	{
		reply_stored(srv, job->session_id, job->request_id, stored);
	}
	else
	{
		session_reply_to(srv, job->session_id, job->request_id, code, why, NULL);
	}
	asset_blob_unref(job->blob);
	free(job);
}

int32_t handle_put_asset(command_ctx* ctx)
{
	const sinew_v1_PutAsset* p = &ctx->msg.command.put_asset;
	if (ctx->bytes_over_limit)
	{
		return cmd_fail(ctx, SV_ERR_LIMIT_REACHED, "put asset: more than max_asset_bytes (%lld)",
						(long long)ctx->srv->config.limits.max_asset_bytes);
	}
	if (p->sha256.size != 0 && p->sha256.size != WIRE_HASH_SIZE)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "put asset: sha256 has %u bytes, not 32",
						(unsigned)p->sha256.size);
	}
	if (ctx->put_blob == NULL)
	{
		ctx->put_blob = asset_blob_new(ASSET_FILE, 0); // an empty file is a file
		if (ctx->put_blob == NULL)
		{
			return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
		}
	}
	// A file the store has already (by the hash the client gives) needs no hashing: nothing is kept from
	// these bytes, so a wrong claim changes nothing.
	if (p->sha256.size == WIRE_HASH_SIZE)
	{
		asset_blob* have = asset_store_find(&ctx->srv->assets, ASSET_FILE, p->sha256.bytes);
		if (have != NULL)
		{
			ctx->reply.which_result = sinew_v1_Reply_asset_tag;
			ctx->reply.result.asset.sha256.size = WIRE_HASH_SIZE;
			memcpy(ctx->reply.result.asset.sha256.bytes, p->sha256.bytes, WIRE_HASH_SIZE);
			ctx->reply.result.asset.size = have->size;
			return 0;
		}
	}
	put_job* job = calloc(1, sizeof(put_job));
	if (job == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	job->work.data = job;
	job->srv = ctx->srv;
	job->session_id = ctx->session->id;
	job->request_id = ctx->request_id;
	job->blob = ctx->put_blob;
	ctx->put_blob = NULL;
	job->has_claim = p->sha256.size == WIRE_HASH_SIZE;
	memcpy(job->claim, p->sha256.bytes, job->has_claim ? WIRE_HASH_SIZE : 0);
	// Hashed on a worker; this session's next commands wait for the answer (a LoadUrdf naming the file).
	ctx->deferred = true;
	ctx->session->holding += 1;
	ctx->srv->stepper.jobs_in_flight += 1;
	if (uv_queue_work(ctx->srv->loop, &job->work, put_run, put_after) != 0)
	{
		put_run(&job->work);
		put_after(&job->work, 0);
	}
	return 0;
}

// ---- GetMesh ------------------------------------------------------------------------------------------

typedef struct mesh_reply
{
	asset_blob* blob;
	wire_bytes bytes;
} mesh_reply;

static void free_mesh_reply(void* p)
{
	mesh_reply* r = p;
	if (r != NULL)
	{
		asset_blob_unref(r->blob);
		free(r);
	}
}

int32_t handle_get_mesh(command_ctx* ctx)
{
	const sinew_v1_GetMesh* g = &ctx->msg.command.get_mesh;
	if (g->hash.size != WIRE_HASH_SIZE)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "get mesh: hash has %u bytes, not 32", (unsigned)g->hash.size);
	}
	asset_blob* blob = asset_store_find(&ctx->srv->assets, ASSET_MESH, g->hash.bytes);
	if (blob == NULL)
	{
		char hex[WIRE_HASH_HEX + 1];
		wire_hash_hex(g->hash.bytes, hex);
		return cmd_fail(ctx, SV_ERR_UNKNOWN_ASSET, "get mesh: no mesh %s on this server", hex);
	}
	if (g->offset > blob->size)
	{
		return cmd_fail(ctx, SN_ERR_INVALID_ARGUMENT, "get mesh: offset %llu is past the mesh's %zu bytes",
						(unsigned long long)g->offset, blob->size);
	}
	// A reply must fit what the client accepts: under max_message_bytes, with room for the envelope.
	size_t chunk = MESH_CHUNK_BYTES;
	size_t room = (size_t)ctx->srv->config.limits.max_message_bytes;
	room = room > 1024 ? room - 512 : 512;
	chunk = chunk < room ? chunk : room;
	if (g->max_bytes > 0 && g->max_bytes < chunk)
	{
		chunk = g->max_bytes;
	}
	size_t left = blob->size - (size_t)g->offset;
	mesh_reply* r = malloc(sizeof(mesh_reply));
	if (r == NULL)
	{
		return cmd_fail(ctx, SN_ERR_NO_MEMORY, "out of memory");
	}
	asset_blob_ref(blob);
	r->blob = blob;
	r->bytes.data = blob->data + g->offset;
	r->bytes.size = left < chunk ? left : chunk;
	ctx->reply_scratch = r;
	ctx->reply_scratch_free = free_mesh_reply;
	ctx->reply.which_result = sinew_v1_Reply_mesh_tag;
	sinew_v1_MeshData* out = &ctx->reply.result.mesh;
	out->hash.size = WIRE_HASH_SIZE;
	memcpy(out->hash.bytes, g->hash.bytes, WIRE_HASH_SIZE);
	out->total_bytes = blob->size;
	out->offset = g->offset;
	out->data.funcs.encode = wire_encode_bytes;
	out->data.arg = &r->bytes;
	return 0;
}

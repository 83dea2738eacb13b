// Model assets over the wire against a real sinewd: a URDF whose geometry is mesh files loads with the
// files it names, sent once (FindAssets says which the server lacks, PutAsset sends them, LoadUrdf names
// them by URI and SHA-256), so that a second load of the same robot sends nothing new; the files may also
// come inside LoadUrdf, or from the server's model path (a model named by the client, or package:// URIs
// of a client's URDF); visual meshes come back by content hash and are fetched once; bad assets (a hash
// that is not the data's, unknown hashes, files too large, too many, a corrupt mesh, a path leaving the
// model path) are typed errors that create nothing; the asset store stays within its bytes; and the event
// loop serves other clients while a detailed robot's meshes are read.
#include "fixture.h"

#include "content.h"
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESHBOT SINEW_TEST_MESH_DIR "/meshbot"

typedef struct file
{
	const char* uri; // as the URDF writes it
	const char* path;
	uint8_t* data;
	size_t size;
	uint8_t sha256[32];
} file;

static uint8_t* read_file(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		fail_msg("cannot read %s", path);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t* data = malloc((size_t)n + 1);
	*size = fread(data, 1, (size_t)n, f);
	data[*size] = 0;
	fclose(f);
	return data;
}

// The meshbot's URDF and the three mesh files it names.
static file meshbot[3] = {
	{ "package://meshbot/meshes/box_yup_mm.dae", MESHBOT "/meshes/box_yup_mm.dae", NULL, 0, { 0 } },
	{ "package://meshbot/meshes/cube.stl", MESHBOT "/meshes/cube.stl", NULL, 0, { 0 } },
	{ "../meshes/cube.obj", MESHBOT "/meshes/cube.obj", NULL, 0, { 0 } },
};
static char* urdf;
static size_t urdf_size;

static void read_meshbot(void)
{
	if (urdf != NULL)
	{
		return;
	}
	urdf = (char*)read_file(MESHBOT "/urdf/meshbot.urdf", &urdf_size);
	for (int i = 0; i < 3; ++i)
	{
		meshbot[i].data = read_file(meshbot[i].path, &meshbot[i].size);
		assert_true(wire_sha256(meshbot[i].data, meshbot[i].size, meshbot[i].sha256));
	}
}

static snc_urdf_request request_for(uint64_t world)
{
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = urdf;
	r.urdf_size = urdf_size;
	r.file_name = "meshbot.urdf";
	return r;
}

// The assets of the meshbot: by hash only, or with their data.
static void assets_of(snc_asset out[3], bool with_data)
{
	for (int i = 0; i < 3; ++i)
	{
		out[i].uri = meshbot[i].uri;
		out[i].sha256 = meshbot[i].sha256;
		out[i].data = with_data ? meshbot[i].data : NULL;
		out[i].size = with_data ? meshbot[i].size : 0;
	}
}

static int missing(snc_client* c)
{
	uint8_t hashes[3][32];
	for (int i = 0; i < 3; ++i)
	{
		memcpy(hashes[i], meshbot[i].sha256, 32);
	}
	snc_message reply;
	assert_int_equal(snc_find_assets(c, (const uint8_t(*)[32])hashes, 3, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	int n = reply.hash_count;
	snc_message_free(&reply);
	return n;
}

static int articulations_in(snc_client* c, uint64_t world)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	int n = -1;
	for (int i = 0; i < reply.world_count; ++i)
	{
		if (reply.worlds[i].world_id == world)
		{
			n = (int)reply.worlds[i].articulation_count;
		}
	}
	snc_message_free(&reply);
	return n;
}

// Every mesh visual of a LoadUrdf reply has its mesh by hash, and the mesh is there to fetch.
static void check_visual_meshes(snc_client* c, const snc_message* reply, int expected)
{
	int meshes = 0;
	for (int i = 0; i < reply->urdf_visual_count; ++i)
	{
		const sinew_v1_UrdfVisual* v = reply->urdf_visuals + i;
		if (v->geometry != sinew_v1_GeometryType_GEOMETRY_MESH)
		{
			continue;
		}
		meshes += 1;
		assert_true(v->has_mesh_ref && v->mesh_ref.hash.size == 32 && v->mesh_ref.triangle_count > 0);
		uint8_t* mesh = NULL;
		size_t size = 0;
		int32_t status = 0;
		assert_int_equal(snc_get_mesh(c, v->mesh_ref.hash.bytes, &mesh, &size, &status, TEST_TIMEOUT_MS), 0);
		assert_int_equal(status, 0);
		wire_mesh view;
		assert_true(wire_mesh_check(mesh, size, &view, NULL, 0));
		assert_int_equal(view.triangle_count, v->mesh_ref.triangle_count);
		uint8_t hash[32];
		wire_sha256(mesh, size, hash);
		assert_memory_equal(hash, v->mesh_ref.hash.bytes, 32);
		free(mesh);
	}
	assert_int_equal(meshes, expected);
}

// Send what the server lacks, then load by hash: the protocol a client follows.
static void test_dedupe(void** state)
{
	(void)state;
	read_meshbot();
	test_server server;
	test_server_start(&server, NULL);
	snc_client* c = test_connect(&server, SNC_TCP, "assets", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "meshbot");
	assert_int_equal(missing(c), 3);
	// Named by hash before they were sent: ERR_UNKNOWN_ASSET, and nothing is created.
	snc_asset assets[3];
	assets_of(assets, false);
	snc_urdf_request r = request_for(world);
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, &r, assets, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_UNKNOWN_ASSET);
	assert_non_null(strstr(snc_reply_text(&reply), "PutAsset"));
	snc_message_free(&reply);
	assert_int_equal(articulations_in(c, world), 0);
	// Sent one by one, each acknowledged with its hash.
	for (int i = 0; i < 3; ++i)
	{
		assert_int_equal(snc_put_asset(c, meshbot[i].data, meshbot[i].size, NULL, &reply, TEST_TIMEOUT_MS), 0);
		assert_int_equal(snc_reply_code(&reply), 0);
		assert_memory_equal(reply.msg.message.reply.result.asset.sha256.bytes, meshbot[i].sha256, 32);
		assert_int_equal(reply.msg.message.reply.result.asset.size, meshbot[i].size);
		snc_message_free(&reply);
	}
	assert_int_equal(missing(c), 0);
	assert_int_equal(snc_load_urdf_assets(c, &r, assets, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	// Two mesh visuals (the DAE and the OBJ), each fetched by hash.
	check_visual_meshes(c, &reply, 2);
	snc_message_free(&reply);
	// Its collision meshes became shapes on its links (hulls).
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = world;
	test_expect(c, &m, 0, &reply);
	int hulls = 0;
	for (int i = 0; i < reply.shape_info_count; ++i)
	{
		hulls += reply.shape_infos[i].type == sinew_v1_ShapeType_SHAPE_HULL;
		assert_true(reply.shape_infos[i].articulation_id != 0);
	}
	assert_int_equal(reply.shape_info_count, 5);
	assert_int_equal(hulls, 2);
	// DescribeWorld names the visual meshes by hash too.
	assert_int_equal(reply.articulation_info_count, 1);
	assert_true(reply.articulation_infos[0].has_urdf);
	int described = 0;
	for (int i = 0; i < reply.urdf_visual_count; ++i)
	{
		described += reply.urdf_visuals[i].has_mesh_ref;
	}
	assert_int_equal(described, 2);
	snc_message_free(&reply);

	// A second load of the same robot, from another client, sends nothing new.
	snc_client* d = test_connect(&server, SNC_WS, "again", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t again = test_create_world(d, "meshbot again");
	assert_int_equal(missing(d), 0);
	r = request_for(again);
	assert_int_equal(snc_load_urdf_assets(d, &r, assets, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	check_visual_meshes(d, &reply, 2);
	snc_message_free(&reply);
	snc_close(d);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// The files inside LoadUrdf itself: one round trip, and the server keeps them for the next load.
static void test_inline_assets(void** state)
{
	(void)state;
	read_meshbot();
	test_server server;
	test_server_start(&server, NULL);
	snc_client* c = test_connect(&server, SNC_TCP, "inline", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "inline");
	snc_asset assets[3];
	assets_of(assets, true);
	assets[0].sha256 = NULL; // the hash may be left out when the data is there
	snc_urdf_request r = request_for(world);
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, &r, assets, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	check_visual_meshes(c, &reply, 2);
	snc_message_free(&reply);
	assert_int_equal(missing(c), 0);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

static void expect_load(snc_client* c, const snc_urdf_request* r, const snc_asset* assets, int count, const char* model,
						int32_t code, const char* says)
{
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, r, assets, count, model, &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != code || (says != NULL && strstr(snc_reply_text(&reply), says) == NULL))
	{
		fail_msg("expected %d (%s), got %d: %s", (int)code, says != NULL ? says : "", (int)snc_reply_code(&reply),
				 snc_reply_text(&reply));
	}
	snc_message_free(&reply);
}

static void test_bad_assets(void** state)
{
	(void)state;
	read_meshbot();
	test_server server;
	static const char* const args[] = { "--max-asset-bytes", "1000", "--max-assets-per-load", "3", NULL };
	test_server_start(&server, args);
	snc_client* c = test_connect(&server, SNC_TCP, "bad", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "bad");
	snc_urdf_request r = request_for(world);
	// The STL and the OBJ (under max_asset_bytes, 1000 here); the DAE has 1648 bytes.
	snc_asset all[3];
	assets_of(all, true);
	snc_asset small[4] = { all[1], all[2], all[2], all[2] };
	// A hash that is not the data's: refused (a client cannot plant a file under another's hash).
	uint8_t wrong[32];
	memcpy(wrong, meshbot[1].sha256, 32);
	wrong[5] ^= 0x40;
	small[0].sha256 = wrong;
	expect_load(c, &r, small, 2, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "sha256 is not");
	assert_int_equal(missing(c), 3); // nothing of it was kept
	small[0].sha256 = meshbot[1].sha256;
	// Past max_assets_per_load (3); the same URI twice; neither hash nor data.
	expect_load(c, &r, small, 4, NULL, sinew_v1_ErrorCode_ERR_LIMIT_REACHED, "max_assets_per_load");
	expect_load(c, &r, small, 3, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "listed twice");
	snc_asset empty = { "package://meshbot/meshes/cube.stl", NULL, NULL, 0 };
	expect_load(c, &r, &empty, 1, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "neither data nor sha256");
	// A mesh file the URDF names that nobody sent: not found, naming it and where the server looked.
	expect_load(c, &r, small, 2, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "box_yup_mm.dae");
	// A file above max_asset_bytes.
	expect_load(c, &r, all, 3, NULL, sinew_v1_ErrorCode_ERR_LIMIT_REACHED, "max_asset_bytes");
	snc_message reply;
	assert_int_equal(snc_put_asset(c, meshbot[0].data, meshbot[0].size, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	snc_message_free(&reply);
	// A corrupt mesh: the importer's typed error, naming the file, the element and the mesh.
	static const char garbage[] = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\n";
	snc_asset corrupt[3] = { all[1], all[1], all[2] };
	corrupt[0].uri = meshbot[0].uri; // an STL where the URDF names a DAE
	corrupt[0].sha256 = NULL;
	corrupt[1].data = garbage;
	corrupt[1].size = sizeof(garbage) - 1;
	corrupt[1].sha256 = NULL;
	expect_load(c, &r, corrupt, 3, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "meshbot.urdf");
	corrupt[0] = all[2];
	corrupt[0].uri = meshbot[0].uri;
	corrupt[1] = all[1];
	expect_load(c, &r, corrupt, 3, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "box_yup_mm.dae");
	// PutAsset: a claim that is not the data's, a hash of the wrong length; FindAssets: likewise.
	assert_int_equal(snc_put_asset(c, meshbot[1].data, meshbot[1].size, wrong, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	snc_message_free(&reply);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_put_asset_tag);
	m.command.put_asset.sha256.size = 5;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	uint8_t zero[4][32];
	memset(zero, 0, sizeof(zero));
	assert_int_equal(snc_find_assets(c, (const uint8_t(*)[32])zero, 3, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	assert_int_equal(reply.hash_count, 3);
	snc_message_free(&reply);
	assert_int_equal(snc_find_assets(c, (const uint8_t(*)[32])zero, 4, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	snc_message_free(&reply);
	// A model on the model path, on a server that has none; urdf text and a model at once.
	expect_load(c, &r, NULL, 0, "meshbot/urdf/meshbot.urdf", sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "model path");
	sinew_v1_ClientMessage both = test_command(sinew_v1_ClientMessage_load_urdf_tag);
	both.command.load_urdf.world_id = world;
	wire_bytes text = { (const uint8_t*)urdf, urdf_size };
	both.command.load_urdf.urdf.funcs.encode = wire_encode_bytes;
	both.command.load_urdf.urdf.arg = &text;
	snprintf(both.command.load_urdf.model, sizeof(both.command.load_urdf.model), "meshbot/urdf/meshbot.urdf");
	test_expect(c, &both, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, NULL);
	// Nothing was created by any of it; an observer session may not put files.
	assert_int_equal(articulations_in(c, world), 0);
	snc_client* o = test_connect(&server, SNC_TCP, "observer", sinew_v1_Role_ROLE_OBSERVER);
	assert_int_equal(snc_put_asset(o, "x", 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE);
	snc_message_free(&reply);
	snc_close(o);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// Models on the server's model path: named by the client, or the package:// files of a client's URDF.
static void test_model_path(void** state)
{
	(void)state;
	read_meshbot();
	test_server server;
	static const char* const args[] = { "--model-path", SINEW_TEST_MESH_DIR, NULL };
	test_server_start(&server, args);
	snc_client* c = test_connect(&server, SNC_TCP, "models", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(c, "models");
	snc_urdf_request r = request_for(world);
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, &r, NULL, 0, "meshbot/urdf/meshbot.urdf", &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	assert_string_equal(reply.msg.message.reply.result.urdf.robot_name, "meshbot");
	check_visual_meshes(c, &reply, 2);
	snc_message_free(&reply);
	expect_load(c, &r, NULL, 0, "package://meshbot/urdf/meshbot.urdf", 0, NULL);
	// Names that would leave the model path, or are not there.
	expect_load(c, &r, NULL, 0, "meshbot/../../model/urdf/pendulum.urdf", sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT,
				NULL);
	expect_load(c, &r, NULL, 0, "/etc/passwd", sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "package://NAME/PATH");
	expect_load(c, &r, NULL, 0, "file:///etc/passwd", sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "package://NAME/PATH");
	expect_load(c, &r, NULL, 0, "meshbot/urdf/none.urdf", sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "not found");
	// A client's URDF: its package:// files from the model path, the relative one sent.
	snc_asset obj = { "../meshes/cube.obj", NULL, meshbot[2].data, meshbot[2].size };
	assert_int_equal(snc_load_urdf_assets(c, &r, &obj, 1, NULL, &reply, TEST_TIMEOUT_MS), 0);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	check_visual_meshes(c, &reply, 2);
	snc_message_free(&reply);
	// ... but not its relative files: the server's disk is not the client's.
	expect_load(c, &r, NULL, 0, NULL, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT, "cube.obj");
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// A demo robot whose geometry is mesh files (--demo-model): its meshes come from its folder and the model
// path, and a dashboard that opens the demo world gets them by hash.
static void test_demo_model_with_meshes(void** state)
{
	(void)state;
	test_server server;
	static const char* const args[] = { TEST_WITH_DEMO, "--demo-model",      MESHBOT "/urdf/meshbot.urdf",
										"--model-path", SINEW_TEST_MESH_DIR, NULL };
	test_server_start(&server, args);
	snc_client* c = test_connect(&server, SNC_TCP, "dashboard", sinew_v1_Role_ROLE_OBSERVER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	assert_true(reply.world_count >= 1);
	uint64_t demo = reply.worlds[0].world_id;
	snc_message_free(&reply);
	m = test_command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = demo;
	test_expect(c, &m, 0, &reply);
	assert_int_equal(reply.articulation_info_count, 1);
	assert_string_equal(reply.articulation_infos[0].urdf.robot_name, "meshbot");
	check_visual_meshes(c, &reply, 2);
	assert_int_equal(reply.shape_info_count, 5);
	snc_message_free(&reply);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// The asset store stays within max_asset_store_bytes: the least recently used files go first, and a load
// that names one that went is told so (the client sends it again).
static void test_store_bounded(void** state)
{
	(void)state;
	read_meshbot();
	test_server server;
	static const char* const args[] = { "--max-asset-store-bytes", "1048576", NULL };
	test_server_start(&server, args);
	snc_client* c = test_connect(&server, SNC_TCP, "store", sinew_v1_Role_ROLE_CONTROLLER);
	snc_message reply;
	assert_int_equal(snc_put_asset(c, meshbot[1].data, meshbot[1].size, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	// Three files of 400 KiB: the third pushes out the oldest (the cube), then the first of them.
	size_t big = 400 * 1024;
	uint8_t* blob = calloc(1, big);
	uint8_t first[32];
	for (int i = 0; i < 3; ++i)
	{
		blob[0] = (uint8_t)i;
		assert_int_equal(snc_put_asset(c, blob, big, NULL, &reply, TEST_TIMEOUT_MS), 0);
		assert_int_equal(snc_reply_code(&reply), 0);
		if (i == 0)
		{
			memcpy(first, reply.msg.message.reply.result.asset.sha256.bytes, 32);
		}
		snc_message_free(&reply);
	}
	// A file larger than the whole store: refused.
	uint8_t* huge = calloc(1, 1100000);
	assert_int_equal(snc_put_asset(c, huge, 1100000, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), sinew_v1_ErrorCode_ERR_LIMIT_REACHED);
	snc_message_free(&reply);
	free(huge);
	uint8_t asked[2][32];
	memcpy(asked[0], meshbot[1].sha256, 32);
	memcpy(asked[1], first, 32);
	assert_int_equal(snc_find_assets(c, (const uint8_t(*)[32])asked, 2, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(reply.hash_count, 2);
	snc_message_free(&reply);
	double bytes = test_metric(&server, "sinew_asset_store_bytes", NULL);
	assert_true(bytes > 0 && bytes <= 1048576);
	free(blob);
	snc_close(c);
	assert_int_equal(test_server_stop(&server), 0);
}

// The Panda of ../shared/robots, on the model path: a detailed robot whose load takes about a second.
#define PANDA "example-robot-data/robots/panda_description/urdf/panda.urdf"

static bool panda_present(void)
{
	FILE* f = fopen(SINEW_SHARED_ROBOTS_DIR "/" PANDA, "rb");
	if (f == NULL)
	{
		print_message("skipped: %s is not there\n", SINEW_SHARED_ROBOTS_DIR "/" PANDA);
		return false;
	}
	fclose(f);
	return true;
}

// While a detailed robot's meshes are read (the Panda's: 19 files, about a second), the loop serves
// others: another client's ping is answered before the load is.
static void test_load_off_the_loop(void** state)
{
	(void)state;
	if (!panda_present())
	{
		return;
	}
	test_server server;
	const char* args[] = { "--model-path", SINEW_SHARED_ROBOTS_DIR, NULL };
	test_server_start(&server, args);
	snc_client* loader = test_connect(&server, SNC_TCP, "loader", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* other = test_connect(&server, SNC_TCP, "other", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(loader, "panda");
	sinew_v1_ClientMessage load = test_command(sinew_v1_ClientMessage_load_urdf_tag);
	load.command.load_urdf.world_id = world;
	snprintf(load.command.load_urdf.model, sizeof(load.command.load_urdf.model), "%s", PANDA);
	assert_int_equal(snc_send(loader, &load), 0);
	test_sleep_ms(20); // the load has begun on a worker
	sinew_v1_ClientMessage ping = test_command(sinew_v1_ClientMessage_ping_tag);
	test_expect(other, &ping, 0, NULL);
	snc_message early;
	assert_int_equal(snc_receive(loader, &early, 0), -ETIMEDOUT); // still loading
	snc_message reply;
	test_wait_for(loader, sinew_v1_ServerMessage_reply_tag, &reply);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("load: %s", snc_reply_text(&reply));
	}
	assert_string_equal(reply.msg.message.reply.result.urdf.robot_name, "panda");
	snc_message_free(&reply);
	snc_close(other);
	snc_close(loader);
	assert_int_equal(test_server_stop(&server), 0);
}

// A lockstep tick whose timeout falls while the world is busy loading a robot: the timeout ran once the
// world was idle again. Before, it was dropped, and the tick waited for the silent controller for ever.
static void test_lockstep_timeout_during_a_load(void** state)
{
	(void)state;
	if (!panda_present())
	{
		return;
	}
	test_server server;
	const char* args[] = { "--model-path", SINEW_SHARED_ROBOTS_DIR, NULL };
	test_server_start(&server, args);
	snc_client* owner = test_connect(&server, SNC_TCP, "owner", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* active = test_connect(&server, SNC_TCP, "active", sinew_v1_Role_ROLE_CONTROLLER);
	snc_client* silent = test_connect(&server, SNC_TCP, "silent", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t world = test_create_world(owner, "lockstep load");
	test_join(active, world, sinew_v1_Role_ROLE_CONTROLLER);
	test_join(silent, world, sinew_v1_Role_ROLE_CONTROLLER);
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_time_mode_tag);
	m.command.set_time_mode.world_id = world;
	m.command.set_time_mode.has_time = true;
	m.command.set_time_mode.time.mode = sinew_v1_TimeMode_TIME_LOCKSTEP;
	m.command.set_time_mode.time.has_lockstep_timeout_ms = true;
	m.command.set_time_mode.time.lockstep_timeout_ms = 100;
	test_expect(owner, &m, 0, NULL);
	// The active controller's input for tick 0 arms the timeout (the silent one's is missing); the owner's
	// load right after it keeps the world busy for about a second.
	sinew_v1_ClientMessage input = test_command(sinew_v1_ClientMessage_lockstep_input_tag);
	input.command.lockstep_input.world_id = world;
	assert_int_equal(snc_send(active, &input), 0);
	sinew_v1_ClientMessage ping = test_command(sinew_v1_ClientMessage_ping_tag);
	assert_int_equal(snc_send(active, &ping), 0); // answered after the input was taken
	snc_message pong;
	test_wait_for(active, sinew_v1_ServerMessage_reply_tag, &pong);
	assert_int_equal(pong.msg.message.reply.request_id, ping.request_id);
	snc_message_free(&pong);
	sinew_v1_ClientMessage load = test_command(sinew_v1_ClientMessage_load_urdf_tag);
	load.command.load_urdf.world_id = world;
	snprintf(load.command.load_urdf.model, sizeof(load.command.load_urdf.model), "%s", PANDA);
	snc_message reply;
	test_expect(owner, &load, 0, NULL);
	// The tick went on without the silent controller, after the load.
	test_wait_for(active, sinew_v1_ServerMessage_reply_tag, &reply);
	assert_int_equal(reply.msg.message.reply.request_id, input.request_id);
	if (snc_reply_code(&reply) != 0)
	{
		fail_msg("lockstep input: %s", snc_reply_text(&reply));
	}
	assert_int_equal(reply.msg.message.reply.result.step.step_count, 1);
	snc_message_free(&reply);
	// The silent one was demoted.
	snc_message event;
	test_wait_for(silent, sinew_v1_ServerMessage_event_tag, &event);
	while (event.msg.message.event.which_event != sinew_v1_Event_demoted_tag)
	{
		snc_message_free(&event);
		test_wait_for(silent, sinew_v1_ServerMessage_event_tag, &event);
	}
	snc_message_free(&event);
	snc_close(silent);
	snc_close(active);
	snc_close(owner);
	assert_int_equal(test_server_stop(&server), 0);
}

int main(void)
{
	test_failures_to_cmocka();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedupe),
		cmocka_unit_test(test_inline_assets),
		cmocka_unit_test(test_bad_assets),
		cmocka_unit_test(test_model_path),
		cmocka_unit_test(test_demo_model_with_meshes),
		cmocka_unit_test(test_store_bounded),
		cmocka_unit_test(test_load_off_the_loop),
		cmocka_unit_test(test_lockstep_timeout_during_a_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

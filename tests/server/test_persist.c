// The state directory: kept worlds survive a SIGKILL mid-run (the last periodic snapshot) and a clean
// shutdown (the final one), with their ids, names, states bit for bit, reset points and robot
// descriptions; worlds that were not kept, or were destroyed, do not come back; corrupted, truncated,
// foreign and unfinished files, and those of another snapshot format (said as such), are reported and
// skipped without stopping the server; a directory that cannot be created stops it at start.
#include "fixture.h"

#include "sinew/world.h"

#include "wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum
{
	ALL = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES |
		sinew_v1_Include_INCLUDE_JOINT_POSITIONS | sinew_v1_Include_INCLUDE_JOINT_FORCES
};

static char state_dir[64];

static const char urdf_text[] =
	"<robot name=\"kept-arm\"><link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"0.1\" iyy=\"0.1\" "
	"izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link><link name=\"forearm\"><inertial><mass value=\"1\"/>"
	"<inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
	"<joint name=\"elbow\" type=\"revolute\"><parent link=\"base\"/><child link=\"forearm\"/><axis xyz=\"0 1 0\"/>"
	"<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint></robot>";

static void start(test_server* s, const char* interval_ms)
{
	const char* args[] = { "--state-dir", state_dir, "--state-snapshot-interval-ms", interval_ms, NULL };
	test_server_start(s, args);
}

static void kill_hard(test_server* s)
{
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
	// The harness keeps a killed server's directory; this one's log is of no further use.
	char path[160];
	snprintf(path, sizeof(path), "%s/ports", s->dir);
	unlink(path);
	unlink(s->log_path);
	rmdir(s->dir);
}

static uint64_t create_world(snc_client* c, const char* name, bool keep)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_create_world_tag);
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "%s", name);
	m.command.create_world.keep_after_disconnect = keep;
	return test_created(c, &m);
}

// A world with a hinged pair of bodies and a URDF arm, stepped a while.
static uint64_t build_kept_world(snc_client* c, const char* name)
{
	uint64_t world = create_world(c, name, true);
	uint64_t a = test_create_body(c, world, 0.25, 0, 0);
	uint64_t b = test_create_body(c, world, 0.75, 0, 0);
	test_create_hinge(c, world, 0, a, 0, 0, 0, -0.25, 0, 0);
	test_create_hinge(c, world, a, b, 0.25, 0, 0, -0.25, 0, 0);
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = urdf_text;
	r.urdf_size = sizeof(urdf_text) - 1;
	snc_message reply;
	assert_int_equal(snc_load_urdf(c, &r, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	test_step(c, world, 100);
	return world;
}

static void assert_same_state(const snc_message* x, const snc_message* y)
{
	assert_int_equal(x->body_count, y->body_count);
	assert_int_equal(x->joint_count, y->joint_count);
	assert_int_equal(x->msg.message.reply.result.state.tick, y->msg.message.reply.result.state.tick);
	for (int i = 0; i < x->body_count; ++i)
	{
		assert_int_equal(x->bodies[i].id, y->bodies[i].id);
		assert_memory_equal(&x->bodies[i].position, &y->bodies[i].position, sizeof(x->bodies[i].position));
		assert_memory_equal(&x->bodies[i].rotation, &y->bodies[i].rotation, sizeof(x->bodies[i].rotation));
		assert_memory_equal(&x->bodies[i].linear_velocity, &y->bodies[i].linear_velocity,
							sizeof(x->bodies[i].linear_velocity));
	}
	for (int i = 0; i < x->joint_count; ++i)
	{
		assert_int_equal(x->joints[i].id, y->joints[i].id);
		assert_int_equal(x->joints[i].position_count, y->joints[i].position_count);
		assert_memory_equal(x->joints[i].position, y->joints[i].position,
							x->joints[i].position_count * sizeof(x->joints[i].position[0]));
	}
}

// The world list as (id, name) pairs.
static int list_worlds(snc_client* c, uint64_t* ids, char (*names)[64], int cap)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	int n = reply.world_count < cap ? reply.world_count : cap;
	for (int i = 0; i < n; ++i)
	{
		ids[i] = reply.worlds[i].world_id;
		snprintf(names[i], 64, "%s", reply.worlds[i].name);
	}
	snc_message_free(&reply);
	return n;
}

static int count_files(const char* suffix)
{
	DIR* d = opendir(state_dir);
	int n = 0;
	struct dirent* e;
	while (d != NULL && (e = readdir(d)) != NULL)
	{
		size_t len = strlen(e->d_name), k = strlen(suffix);
		n += len >= k && strcmp(e->d_name + len - k, suffix) == 0;
	}
	if (d != NULL)
	{
		closedir(d);
	}
	return n;
}

static void clear_dir(void)
{
	DIR* d = opendir(state_dir);
	struct dirent* e;
	while (d != NULL && (e = readdir(d)) != NULL)
	{
		if (e->d_name[0] != '.')
		{
			char path[512];
			snprintf(path, sizeof(path), "%s/%s", state_dir, e->d_name);
			unlink(path);
		}
	}
	if (d != NULL)
	{
		closedir(d);
	}
}

static void test_kill_and_restart(void** state)
{
	(void)state;
	clear_dir();
	test_server a;
	start(&a, "200");
	snc_client* c = test_connect(&a, SNC_TCP, "keeper", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t kept = build_kept_world(c, "kept — ロボット");
	uint64_t gone = create_world(c, "kept, then destroyed", true);
	create_world(c, "not kept", false);
	test_sleep_ms(600); // three intervals: written
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = gone;
	test_expect(c, &m, 0, NULL);
	snc_message before;
	test_get_state(c, kept, ALL, &before);
	test_sleep_ms(600); // the removal done; nothing changed since the last write
	assert_int_equal(count_files(".sinew"), 1);
	// Killed mid-run: no shutdown, no final write.
	kill_hard(&a);
	snc_close(c);

	test_server b;
	start(&b, "200");
	c = test_connect(&b, SNC_TCP, "again", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t ids[8];
	char names[8][64];
	int n = list_worlds(c, ids, names, 8);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], kept);
	assert_string_equal(names[0], "kept — ロボット");
	snc_message after;
	test_get_state(c, kept, ALL, &after);
	assert_same_state(&before, &after);
	snc_message_free(&before);
	snc_message_free(&after);
	assert_true(test_metric(&b, "sinew_state_worlds_restored", NULL) == 1.0);
	// Its robot is still described by name, it is ownerless (anyone may take it), and it steps on.
	m = test_command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = kept;
	snc_message described;
	test_expect(c, &m, 0, &described);
	assert_int_equal(described.msg.message.reply.which_result, sinew_v1_Reply_description_tag);
	snc_message_free(&described);
	test_join(c, kept, sinew_v1_Role_ROLE_OWNER);
	test_step(c, kept, 10);
	// Reset returns to its reset point (the state it was created in: no steps).
	m = test_command(sinew_v1_ClientMessage_reset_tag);
	m.command.reset.world_id = kept;
	test_expect(c, &m, 0, NULL);
	snc_message reset;
	test_get_state(c, kept, ALL, &reset);
	assert_int_equal(reset.msg.message.reply.result.state.tick, 0);
	snc_message_free(&reset);
	snc_close(c);
	assert_int_equal(test_server_stop(&b), 0);
}

static void test_clean_shutdown_writes_the_last_state(void** state)
{
	(void)state;
	clear_dir();
	test_server a;
	start(&a, "86400000"); // no periodic write in this test: only the one at shutdown
	snc_client* c = test_connect(&a, SNC_TCP, "keeper", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t kept = build_kept_world(c, "written at shutdown");
	// Its controller key is kept with it: adopting it after the restart still needs the key.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_set_controller_key_tag);
	m.command.set_controller_key.world_id = kept;
	snprintf(m.command.set_controller_key.key, sizeof(m.command.set_controller_key.key), "%s", "kept key");
	test_expect(c, &m, 0, NULL);
	snc_message before;
	test_get_state(c, kept, ALL, &before);
	snc_close(c);
	assert_int_equal(count_files(".sinew"), 0);
	assert_int_equal(test_server_stop(&a), 0);
	assert_int_equal(count_files(".sinew"), 1);
	test_server b;
	start(&b, "86400000");
	c = test_connect(&b, SNC_TCP, "again", sinew_v1_Role_ROLE_CONTROLLER);
	snc_message after;
	test_get_state(c, kept, ALL, &after);
	assert_same_state(&before, &after);
	snc_message_free(&before);
	snc_message_free(&after);
	m = test_command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = kept;
	m.command.join_world.role = sinew_v1_Role_ROLE_OWNER;
	test_expect(c, &m, sinew_v1_ErrorCode_ERR_FORBIDDEN_BY_ROLE, NULL);
	snprintf(m.command.join_world.controller_key, sizeof(m.command.join_world.controller_key), "%s", "kept key");
	test_expect(c, &m, 0, NULL);
	snc_close(c);
	assert_int_equal(test_server_stop(&b), 0);
}

static uint8_t* slurp(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t* data = malloc(1 << 20);
	*size = fread(data, 1, 1 << 20, f);
	fclose(f);
	return data;
}

// The visual mesh refs of the one URDF articulation a world describes; their count.
static int described_meshes(snc_client* c, uint64_t world, uint8_t hashes[][32], int cap)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_describe_world_tag);
	m.command.describe_world.world_id = world;
	snc_message reply;
	test_expect(c, &m, 0, &reply);
	int n = 0;
	for (int i = 0; i < reply.urdf_visual_count && n < cap; ++i)
	{
		if (reply.urdf_visuals[i].has_mesh_ref)
		{
			memcpy(hashes[n++], reply.urdf_visuals[i].mesh_ref.hash.bytes, 32);
		}
	}
	snc_message_free(&reply);
	return n;
}

// A kept world's robot keeps its meshes across a restart: they are written beside the world's file, read
// back into the asset store, and removed once no kept world names them.
// Load meshbot (two meshes) into a world.
static void load_meshbot(snc_client* c, uint64_t world)
{
	size_t size = 0;
	char* urdf = (char*)slurp(SINEW_TEST_MESH_DIR "/meshbot/urdf/meshbot.urdf", &size);
	static const char* const uris[3] = { "package://meshbot/meshes/box_yup_mm.dae", "package://meshbot/meshes/cube.stl",
										 "../meshes/cube.obj" };
	static const char* const paths[3] = { SINEW_TEST_MESH_DIR "/meshbot/meshes/box_yup_mm.dae",
										  SINEW_TEST_MESH_DIR "/meshbot/meshes/cube.stl",
										  SINEW_TEST_MESH_DIR "/meshbot/meshes/cube.obj" };
	uint8_t* files[3];
	snc_asset assets[3];
	for (int i = 0; i < 3; ++i)
	{
		size_t n = 0;
		files[i] = slurp(paths[i], &n);
		assets[i] = (snc_asset){ uris[i], NULL, files[i], n };
	}
	snc_urdf_request r;
	memset(&r, 0, sizeof(r));
	r.world_id = world;
	r.urdf = urdf;
	r.urdf_size = size;
	snc_message reply;
	assert_int_equal(snc_load_urdf_assets(c, &r, assets, 3, NULL, &reply, TEST_TIMEOUT_MS), 0);
	assert_int_equal(snc_reply_code(&reply), 0);
	snc_message_free(&reply);
	for (int i = 0; i < 3; ++i)
	{
		free(files[i]);
	}
	free(urdf);
}

static void test_meshes_come_back(void** state)
{
	(void)state;
	clear_dir();
	test_server a;
	start(&a, "86400000");
	snc_client* c = test_connect(&a, SNC_TCP, "keeper", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t kept = create_world(c, "with meshes", true);
	load_meshbot(c, kept);
	uint8_t before[4][32];
	assert_int_equal(described_meshes(c, kept, before, 4), 2);
	snc_close(c);
	assert_int_equal(test_server_stop(&a), 0);
	assert_int_equal(count_files(".snms"), 2);

	test_server b;
	start(&b, "86400000");
	c = test_connect(&b, SNC_TCP, "again", sinew_v1_Role_ROLE_CONTROLLER);
	uint8_t after[4][32];
	assert_int_equal(described_meshes(c, kept, after, 4), 2);
	assert_memory_equal(before, after, 2 * 32);
	uint8_t* mesh = NULL;
	size_t mesh_size = 0;
	int32_t status = -1;
	assert_int_equal(snc_get_mesh(c, after[0], &mesh, &mesh_size, &status, TEST_TIMEOUT_MS), 0);
	assert_int_equal(status, 0);
	free(mesh);
	// Once the world is gone, its meshes go with the next start.
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_join_world_tag);
	m.command.join_world.world_id = kept;
	m.command.join_world.role = sinew_v1_Role_ROLE_OWNER;
	test_expect(c, &m, 0, NULL);
	m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = kept;
	test_expect(c, &m, 0, NULL);
	snc_close(c);
	assert_int_equal(test_server_stop(&b), 0);
	test_server again;
	start(&again, "86400000");
	assert_int_equal(count_files(".snms"), 0);
	assert_int_equal(test_server_stop(&again), 0);
}

static void write_file(const char* name, const void* bytes, size_t size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", state_dir, name);
	FILE* f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(bytes, 1, size, f);
	fclose(f);
}

static uint8_t* read_file(const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t* bytes = malloc(*size);
	assert_int_equal(fread(bytes, 1, *size, f), *size);
	fclose(f);
	return bytes;
}

static int log_count(const test_server* s, const char* text)
{
	FILE* f = fopen(s->log_path, "r");
	int n = 0;
	char line[2048];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
	{
		n += strstr(line, text) != NULL;
	}
	if (f != NULL)
	{
		fclose(f);
	}
	return n;
}

// The file's own checksum (persist.c): FNV-1a over everything before its last 8 bytes.
static void seal(uint8_t* bytes, size_t size)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i + 8 < size; ++i)
	{
		h ^= bytes[i];
		h *= 1099511628211ull;
	}
	for (int k = 0; k < 8; ++k)
	{
		bytes[size - 8 + (size_t)k] = (uint8_t)(h >> (8 * k));
	}
}

// A copy of a good file as a sinewd of an older snapshot format would have written it: the version in
// the header of each snapshot in it (the world's and its reset point's) two lower, the file sealed again.
static void write_other_format(const uint8_t* good, size_t size)
{
	uint8_t* bytes = malloc(size);
	memcpy(bytes, good, size);
	int patched = 0;
	for (size_t i = 0; i + 12 <= size; ++i)
	{
		if (memcmp(bytes + i, "SNWSNAP1", 8) == 0 && sn_snapshot_version(bytes + i, size - i) == SN_SNAPSHOT_VERSION)
		{
			uint32_t older = SN_SNAPSHOT_VERSION - 2;
			for (int k = 0; k < 4; ++k)
			{
				bytes[i + 8 + (size_t)k] = (uint8_t)(older >> (8 * k));
			}
			patched += 1;
		}
	}
	assert_int_equal(patched, 2);
	seal(bytes, size);
	write_file("world-0000000900000001.sinew", bytes, size);
	free(bytes);
}

static void destroy_world(snc_client* c, uint64_t world)
{
	sinew_v1_ClientMessage m = test_command(sinew_v1_ClientMessage_destroy_world_tag);
	m.command.destroy_world.world_id = world;
	test_expect(c, &m, 0, NULL);
}

static void test_meshes_go_with_their_last_world(void** state)
{
	(void)state;
	// Mesh files were removed only at the next start: a client loading robot after robot into kept
	// worlds and destroying them filled the disk while the server ran. Now they go once no kept world
	// names them (here within a few 100 ms intervals), and not while another still does.
	clear_dir();
	test_server s;
	start(&s, "100");
	snc_client* c = test_connect(&s, SNC_TCP, "keeper", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t first = create_world(c, "first", true);
	uint64_t second = create_world(c, "second", true);
	load_meshbot(c, first);
	load_meshbot(c, second);
	test_sleep_ms(500);
	assert_int_equal(count_files(".snms"), 2);
	destroy_world(c, first);
	test_sleep_ms(500);
	assert_int_equal(count_files(".snms"), 2); // the second world still names them
	destroy_world(c, second);
	for (int i = 0; i < 50 && count_files(".snms") != 0; ++i)
	{
		test_sleep_ms(100);
	}
	assert_int_equal(count_files(".snms"), 0);
	assert_int_equal(count_files(".sinew"), 0);
	snc_close(c);
	assert_int_equal(test_server_stop(&s), 0);
}

static void test_bad_files_are_skipped(void** state)
{
	(void)state;
	clear_dir();
	// One good file, from a server that kept a world and stopped.
	test_server a;
	start(&a, "86400000");
	snc_client* c = test_connect(&a, SNC_TCP, "keeper", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t kept = build_kept_world(c, "the good one");
	snc_close(c);
	assert_int_equal(test_server_stop(&a), 0);
	char good[512];
	snprintf(good, sizeof(good), "%s/world-%016llx.sinew", state_dir, (unsigned long long)kept);
	size_t size = 0;
	uint8_t* bytes = read_file(good, &size);
	// The bad ones, under names a world could have.
	uint8_t junk[4096];
	for (size_t i = 0; i < sizeof(junk); ++i)
	{
		junk[i] = (uint8_t)(i * 2654435761u >> 13);
	}
	write_file("world-0000000200000001.sinew", junk, sizeof(junk)); // garbage
	write_file("world-0000000300000001.sinew", bytes, size / 2);    // truncated
	write_file("world-0000000400000001.sinew", "", 0);              // empty
	bytes[size / 2] ^= 0x40;                                        // one bit flipped
	write_file("world-0000000500000001.sinew", bytes, size);
	bytes[size / 2] ^= 0x40;
	write_other_format(bytes, size); // written by a sinewd of another snapshot format
	memcpy(bytes, "OTHERAPP", 8);    // another program's file
	write_file("world-0000000600000001.sinew", bytes, size);
	write_file("world-0000000700000001.sinew.tmp-3", junk, 100); // a write a crash cut short
	write_file("notes.txt", "not ours\n", 9);                    // not ours: left alone
	char sub[512];
	snprintf(sub, sizeof(sub), "%s/world-0000000800000001.sinew", state_dir);
	mkdir(sub, 0700); // a directory under a world's name
	free(bytes);

	test_server b;
	start(&b, "86400000");
	c = test_connect(&b, SNC_TCP, "again", sinew_v1_Role_ROLE_CONTROLLER);
	uint64_t ids[8];
	char names[8][64];
	int n = list_worlds(c, ids, names, 8);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], kept);
	assert_string_equal(names[0], "the good one");
	snc_close(c);
	// Seven skipped, each said (the other format as such), and the unfinished write removed; notes.txt
	// is still there.
	assert_int_equal(log_count(&b, "state file skipped"), 7);
	char other_format[96];
	snprintf(other_format, sizeof(other_format), "written in snapshot format %u", (unsigned)SN_SNAPSHOT_VERSION - 2);
	assert_int_equal(log_count(&b, other_format), 1);
	assert_int_equal(count_files(".tmp-3"), 0);
	assert_int_equal(count_files("notes.txt"), 1);
	assert_int_equal(test_server_stop(&b), 0);
	rmdir(sub);
}

static void test_unusable_directory_stops_the_start(void** state)
{
	(void)state;
	// A path under a regular file cannot be a directory.
	char file[128], dir[160];
	snprintf(file, sizeof(file), "%s/a-file", state_dir);
	write_file("a-file", "x", 1);
	snprintf(dir, sizeof(dir), "%s/state", file);
	pid_t pid = fork();
	if (pid == 0)
	{
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		execl(SINEWD_PATH, SINEWD_PATH, "--no-demo", "--tcp-port", "0", "--ws-port", "-1", "--state-dir", dir,
			  (char*)NULL);
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	unlink(file);
}

static int setup(void** state)
{
	(void)state;
	test_failures_to_cmocka();
	snprintf(state_dir, sizeof(state_dir), "/tmp/sinew-state-XXXXXX");
	return mkdtemp(state_dir) != NULL ? 0 : -1;
}

static int teardown(void** state)
{
	(void)state;
	clear_dir();
	rmdir(state_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_and_restart),
		cmocka_unit_test(test_clean_shutdown_writes_the_last_state),
		cmocka_unit_test(test_bad_files_are_skipped),
		cmocka_unit_test(test_meshes_come_back),
		cmocka_unit_test(test_meshes_go_with_their_last_world),
		cmocka_unit_test(test_unusable_directory_stops_the_start),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

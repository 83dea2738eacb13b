// `sinew sim`: the CSV it writes (header, one row per output step, numbers that read back) and its exit
// status on bad options and bad models. The runner is called in-process through sinew_sim_main, with the
// argv a shell would pass.
#define _POSIX_C_SOURCE 200809L // strdup

#include "support.h"

#include "sim.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URDF(name) SINEW_TEST_URDF_DIR "/" name
#define OUT(name) SINEW_TEST_OUT_DIR "/" name

static int sim(int argc, const char* const* args)
{
	// sinew_sim_main may write into argv (it splits JOINT=value in place): give it copies.
	char* argv[32];
	assert_true(argc < 32);
	for (int i = 0; i < argc; ++i)
	{
		argv[i] = strdup(args[i]);
	}
	argv[argc] = NULL;
	int status = sinew_sim_main(argc, argv);
	for (int i = 0; i < argc; ++i)
	{
		free(argv[i]);
	}
	return status;
}

#define SIM(...)                                                                                                       \
	sim((int)(sizeof((const char*[]){ __VA_ARGS__ }) / sizeof(const char*)), (const char*[]){ __VA_ARGS__ })

// Read a whole small file; the caller frees it.
static char* slurp(const char* path)
{
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	static char buffer[1 << 20];
	size_t n = fread(buffer, 1, sizeof(buffer) - 1, f);
	fclose(f);
	buffer[n] = '\0';
	return strdup(buffer);
}

static int count_lines(const char* text)
{
	int n = 0;
	for (const char* c = text; *c != '\0'; ++c)
	{
		n += *c == '\n';
	}
	return n;
}

static void test_csv_header_and_rows(void** state)
{
	(void)state;
	remove(OUT("double.csv"));
	assert_int_equal(SIM("sim", URDF("double_pendulum.urdf"), "--steps", "100", "--every", "7", "--csv",
						 OUT("double.csv"), "--initial", "shoulder=0.5", "--quiet"),
					 0);
	char* text = slurp(OUT("double.csv"));
	assert_true(strncmp(text, "t,shoulder,elbow\n", 17) == 0);
	// Header, the row at t = 0, and one every 7 steps: 1 + 1 + floor(100 / 7) = 16 lines.
	assert_int_equal(count_lines(text), 16);
	// The first row: t = 0 and the initial positions as written (%.17g reads back exactly).
	const char* row = strchr(text, '\n') + 1;
	char* end;
	assert_true(strtod(row, &end) == 0.0);
	assert_true(*end == ',');
	assert_true(strtod(end + 1, &end) == 0.5);
	assert_true(strtod(end + 1, &end) == 0.0);
	// The last row: t = 98 steps of 1 ms.
	const char* last = text + strlen(text) - 1;
	while (last > text && last[-1] != '\n')
	{
		--last;
	}
	assert_near(strtod(last, NULL), 0.098, 1e-15, "98 steps of 0.001 s, summed");
	free(text);
}

static void test_floating_columns_and_drives(void** state)
{
	(void)state;
	assert_int_equal(SIM("sim", URDF("floating.urdf"), "--duration=0.01", "--dt", "0.002", "--csv", OUT("float.csv"),
						 "--drive", "left_hip=100,10,0.2", "--drive-all", "50,5", "--gravity", "0,0,-1", "--solver",
						 "pgs", "--quiet"),
					 0);
	char* text = slurp(OUT("float.csv"));
	const char* header = "t,base_joint.x,base_joint.y,base_joint.z,base_joint.rx,base_joint.ry,base_joint.rz,left_hip,"
						 "right_hip\n";
	assert_true(strncmp(text, header, strlen(header)) == 0);
	assert_int_equal(count_lines(text), 1 + 1 + 5);
	free(text);
	// The demo arm, with its mimic follower as a column of its own.
	assert_int_equal(SIM("sim", SINEW_MODELS_DIR "/sinew_arm.urdf", "--steps", "20", "--drive-all", "200,20", "--csv",
						 OUT("arm.csv"), "--quiet"),
					 0);
	text = slurp(OUT("arm.csv"));
	assert_true(strncmp(text,
						"t,joint1,joint2,joint3,joint4,joint5,joint6,joint7,finger_left_joint,finger_right_joint\n",
						88) == 0);
	free(text);
}

static void test_importer_options(void** state)
{
	(void)state;
	// --base floating on a URDF without a floating joint: the base columns come first, named after the base.
	assert_int_equal(
		SIM("sim", URDF("pendulum.urdf"), "--base", "floating", "--steps", "3", "--csv", OUT("pf.csv"), "--quiet"), 0);
	char* text = slurp(OUT("pf.csv"));
	const char* header = "t,base.x,base.y,base.z,base.rx,base.ry,base.rz,hinge\n";
	if (strncmp(text, header, strlen(header)) != 0)
	{
		fail_msg("header: %.120s", text);
	}
	free(text);
	// The build options real files need.
	assert_int_equal(SIM("sim", URDF("forgiving.urdf"), "--steps", "3", "--velocity-limits", "joint",
						 "--massless-link-mass", "0.01", "--balance-inertia", "--keep-fixed-links", "--quiet"),
					 1); // kept on its own link, the camera's point mass has no inertia: refused
	assert_int_equal(SIM("sim", URDF("forgiving.urdf"), "--steps", "3", "--velocity-limits", "none",
						 "--massless-link-mass", "0.01", "--balance-inertia", "--quiet"),
					 0);
	assert_int_equal(SIM("sim", URDF("forgiving.urdf"), "--velocity-limits", "fast"), 2);
	assert_int_equal(SIM("sim", URDF("forgiving.urdf"), "--massless-link-mass", "0"), 2);
	// --initial on a mimic follower moves its leader (the follower's column reads what was asked).
	assert_int_equal(SIM("sim", URDF("forgiving.urdf"), "--steps", "0", "--initial", "finger_b=-0.03", "--csv",
						 OUT("fb.csv"), "--quiet"),
					 0);
	text = slurp(OUT("fb.csv"));
	assert_non_null(strstr(text, "\n0,0,0.014999999999999999,-0.029999999999999999\n"));
	free(text);
}

// What the importer ignored, merged or repaired reaches the user: `sinew sim` prints the parse's and the
// build's warnings on stderr, also with --quiet (which silences only progress and summary).
static void test_warnings_on_stderr(void** state)
{
	(void)state;
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	int fd = open(OUT("warnings.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_true(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
	close(fd);
	int status = SIM("sim", URDF("forgiving.urdf"), "--steps", "1", "--quiet");
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
	close(saved);
	assert_int_equal(status, 0);
	char* text = slurp(OUT("warnings.txt"));
	// The parse's warning (the <mimic> on a fixed joint, with its line) and the build's (the massless root
	// welded to the world), as forgiving.urdf gives them (test_urdf_build.c: test_forgiving_files).
	if (strstr(text, "sinew sim: warning: ") == NULL || strstr(text, "forgiving.urdf:25") == NULL ||
		strstr(text, "on a fixed joint is ignored") == NULL || strstr(text, "welded to the world") == NULL)
	{
		fail_msg("stderr: %.400s", text);
	}
	free(text);
}

static void test_exit_status(void** state)
{
	(void)state;
	// Bad options: 2.
	assert_int_equal(SIM("sim"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--frobnicate", "1"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--dt", "0"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--dt", "1ms"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--steps", "-3"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--steps", "10", "--duration", "1"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--solver", "magic"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--gravity", "0,0"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--drive", "hinge=1,2"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--drive", "nope=1,2,3", "--steps", "1"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--initial", "hinge"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--every", "0"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--csv"), 2);
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), URDF("tree.urdf")), 2);
	// Bad models: 1.
	assert_int_equal(SIM("sim", URDF("no-such.urdf"), "--quiet"), 1);
	FILE* f = fopen(OUT("bad.urdf"), "w");
	assert_non_null(f);
	fputs("<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"hinge\"/>\n</robot>\n", f);
	fclose(f);
	assert_int_equal(SIM("sim", OUT("bad.urdf"), "--quiet"), 1);
	// Unwritable CSV: 1.
	assert_int_equal(SIM("sim", URDF("pendulum.urdf"), "--steps", "1", "--csv", OUT("no-such-dir/x.csv"), "--quiet"),
					 1);
	// Help: 0.
	assert_int_equal(SIM("sim", "--help"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_header_and_rows), cmocka_unit_test(test_floating_columns_and_drives),
		cmocka_unit_test(test_importer_options),    cmocka_unit_test(test_warnings_on_stderr),
		cmocka_unit_test(test_exit_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

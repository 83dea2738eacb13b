// The demo world's pick-and-place (server/demo_scene.c), without the network: the scene sinewd starts with,
// driven by its own controller before every step as the server drives it, run as fast as it goes for 120 s
// of simulated time. Every completed cycle must leave the box at its place (none dropped), and the box
// must never fall or slip in the fingers. It prints one BENCH line with the cycles, the time per cycle
// (simulated and wall) and the worst errors. DEMO_SCENE_SECONDS=S runs S simulated seconds instead (a
// soak: the place errors must not grow from cycle to cycle).
//
// In the sanitizer build (unoptimised, ASan and UBSan: the scene steps 18 times slower, 120 s took 180 s of
// CPU) it runs 40 s, six cycles: every stage, both grips and both directions, which is what the
// sanitizers need to see; DEMO_SCENE_SECONDS=120 runs the whole of it there too.
#define _POSIX_C_SOURCE 200809L

#include "support.h"

#include "demo_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The embedded demo robot (generated from models/sinew_arm.urdf into the server library).
extern const unsigned char demo_model_urdf[];
extern const unsigned long demo_model_urdf_size;

// Tolerances, with their reasons:
// - A placed box rests where the cycle meant to put it within 5 mm across the table and 2 mm in height.
//   Measured: within 1 mm (the arm's tracking error, and what the box creeps in the fingers while carried,
//   0.2 mm); 5 mm is a tenth of the box, far below what a slip or a drop does (centimetres). Errors cannot
//   add up from cycle to cycle: each grasp turns a quarter from the last place, so the fingers centre the
//   box along the axis they did not centre before. In height it rests on the table: 2 mm covers the contact
//   slop (0.5 mm) and settling.
// - It stands upright within 5 degrees and square to its site within 5 degrees (a box that tipped or
//   turned in the fingers would show tens).
// - In the fingers it moves by less than 3 mm relative to the tool frame from the start of the lift to the
//   end of the lowering: friction holds it (a box that slips out falls by centimetres).
// - While it is carried it is at least 0.1 m above the table (the lift is 0.15 m).
#define PLACE_XY_TOLERANCE 0.005
#define PLACE_Z_TOLERANCE 0.002
#define ANGLE_TOLERANCE_RAD (5.0 * SN_PI / 180.0)
#define SLIP_TOLERANCE 0.003
#define CARRY_CLEARANCE 0.1

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The angle between the box's nearest axis to the vertical and the vertical (rad).
static double tilt(sn_quat q)
{
	sn_vec3 up = sn_v3(0.0, 0.0, 1.0);
	sn_vec3 axes[3] = { sn_rotate(q, sn_v3(1, 0, 0)), sn_rotate(q, sn_v3(0, 1, 0)), sn_rotate(q, sn_v3(0, 0, 1)) };
	double best = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		best = fmax(best, fabs(sn_dot(axes[i], up)));
	}
	return acos(fmin(best, 1.0));
}

// How far the box's faces are turned from square to the line from the arm's axis (the origin) to where it
// rests, about the vertical (rad, in [0, pi/4]: a cube looks the same every quarter turn).
static double turn_off_square(sn_transform pose)
{
	sn_vec3 x = sn_rotate(pose.q, sn_v3(1, 0, 0));
	double off = atan2(x.y, x.x) - atan2(pose.p.y, pose.p.x);
	off = fmod(off, 0.5 * SN_PI);
	off = off < 0.0 ? off + 0.5 * SN_PI : off;
	return fmin(off, 0.5 * SN_PI - off);
}

static void test_pick_and_place(void** state)
{
	(void)state;
#ifdef SINEW_TEST_SANITIZED
	double seconds = 40.0;
#else
	double seconds = 120.0;
#endif
	const char* soak = getenv("DEMO_SCENE_SECONDS");
	if (soak != NULL && atof(soak) > 0.0)
	{
		seconds = atof(soak);
	}
	demo_scene_parts parts;
	char detail[256];
	sn_error err = demo_scene_create((const char*)demo_model_urdf, (size_t)demo_model_urdf_size, "sinew_arm.urdf",
									 &parts, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		fail_msg("the demo scene: %s", detail);
	}
	sn_world* world = parts.world;
	demo_scene* scene = parts.scene;
	sn_body_id box = demo_scene_box(scene);
	const double rest_z = demo_scene_site(scene, 0).z; // the box's centre resting on the table
	const double dt = sn_world_get_time_step(world);
	const double period = demo_scene_cycle_seconds();
	const long steps = (long)(seconds / dt + 0.5);

	int completed = 0, placed = 0;
	double worst_xy = 0.0, worst_z = 0.0, worst_tilt = 0.0, worst_turn = 0.0, worst_slip = 0.0;
	double lowest_carry = INFINITY, first_xy = 0.0, last_xy = 0.0;
	bool held = false;
	sn_vec3 held_at = sn_v3(0, 0, 0); // the box in the tool frame when the lift began
	long asleep_steps = 0;
	double t0 = now_s();
	for (long i = 0; i < steps; ++i)
	{
		demo_scene_drive(scene, world);
		assert_sn_ok(sn_world_step(world));
		double t = sn_world_get_time(world);
		demo_phase p = demo_scene_phase_at(t - 0.5 * dt); // the stage this step belonged to
		sn_transform pose = sn_body_get_pose(world, box);
		asleep_steps += sn_body_is_awake(world, box) ? 0 : 1;
		// Never below the table's top (on the floor, or sunk into the table).
		if (pose.p.z < rest_z - PLACE_Z_TOLERANCE)
		{
			fail_msg("t = %.3f s (cycle %ld, %s): the box fell to z = %.4f m", t, p.cycle, demo_stage_name(p.stage),
					 pose.p.z);
		}
		// In the fingers from the lift to the lowering: it moves with the tool.
		bool carrying = p.stage == DEMO_STAGE_LIFT || p.stage == DEMO_STAGE_CARRY || p.stage == DEMO_STAGE_LOWER;
		sn_vec3 in_tool = sn_inv_transform_point(demo_scene_tool_pose(scene, world), pose.p);
		if (carrying && !held)
		{
			held_at = in_tool;
		}
		held = carrying;
		if (held)
		{
			double slip = sn_length(sn_sub(in_tool, held_at));
			worst_slip = fmax(worst_slip, slip);
			if (slip > SLIP_TOLERANCE)
			{
				fail_msg("t = %.3f s (cycle %ld, %s): the box slipped %.4f m in the fingers", t, p.cycle,
						 demo_stage_name(p.stage), slip);
			}
		}
		if (p.stage == DEMO_STAGE_CARRY)
		{
			lowest_carry = fmin(lowest_carry, pose.p.z - rest_z);
		}
		// The end of a cycle: the box rests at the site it was carried to.
		if (t >= (double)(completed + 1) * period - 0.5 * dt)
		{
			sn_vec3 site = demo_scene_site(scene, (completed + 1) % 2);
			double xy = hypot(pose.p.x - site.x, pose.p.y - site.y), z = fabs(pose.p.z - site.z);
			double tl = tilt(pose.q), turn = turn_off_square(pose);
			worst_xy = fmax(worst_xy, xy);
			worst_z = fmax(worst_z, z);
			worst_tilt = fmax(worst_tilt, tl);
			worst_turn = fmax(worst_turn, turn);
			first_xy = completed == 0 ? xy : first_xy;
			last_xy = xy;
			if (completed < 20 || (completed + 1) % 100 == 0)
			{
				print_message("cycle %3d ends at %7.2f s: box off its place by %5.2f mm across, %5.2f mm in height, "
							  "tilted %.2f deg, turned %.2f deg\n",
							  completed + 1, t, 1e3 * xy, 1e3 * z, tl * 180.0 / SN_PI, turn * 180.0 / SN_PI);
			}
			placed += xy <= PLACE_XY_TOLERANCE && z <= PLACE_Z_TOLERANCE && tl <= ANGLE_TOLERANCE_RAD &&
				turn <= ANGLE_TOLERANCE_RAD;
			completed += 1;
		}
	}
	double wall = now_s() - t0;
	print_message("BENCH test=demo_scene sim_s=%.0f cycles=%d placed=%d dropped=%d cycle_s=%.3f wall_s=%.3f "
				  "wall_per_cycle_s=%.4f realtime_factor=%.1f worst_place_xy_m=%.5f first_place_xy_m=%.5f "
				  "last_place_xy_m=%.5f worst_place_z_m=%.5f worst_tilt_rad=%.4f worst_turn_rad=%.4f "
				  "worst_slip_m=%.5f lowest_carry_m=%.4f box_asleep_s=%.3f\n",
				  seconds, completed, placed, completed - placed, period, wall, wall / fmax(completed, 1),
				  seconds / wall, worst_xy, first_xy, last_xy, worst_z, worst_tilt, worst_turn, worst_slip,
				  lowest_carry, (double)asleep_steps * dt);
	assert_int_equal(completed, (int)(seconds / period)); // 120 s: 18 cycles of 6.6 s
	assert_int_equal(placed, completed);
	assert_true(lowest_carry >= CARRY_CLEARANCE);
	assert_false(sn_world_is_diverged(world));
	demo_scene_parts_free(&parts);
}

// The schedule: stages in order, a cycle of 6.6 s, and times before the start read as the start.
static void test_schedule(void** state)
{
	(void)state;
	const double period = demo_scene_cycle_seconds();
	assert_near(period, 6.6, 1e-12, "the stages' durations add up");
	demo_phase p = demo_scene_phase_at(-1.0);
	assert_int_equal(p.cycle, 0);
	assert_int_equal(p.stage, DEMO_STAGE_DESCEND);
	int changes = 0;
	demo_stage last = DEMO_STAGE_DESCEND;
	for (int k = 0; k < 1320; ++k) // two cycles in steps of 10 ms
	{
		double t = 0.01 * k;
		p = demo_scene_phase_at(t);
		// 1e-9 s: the rounding of the stages' sums.
		assert_true(t >= p.stage_begin - 1e-9 && t < p.stage_end + 1e-9);
		assert_int_equal(p.cycle, k / 660);
		if (p.stage != last)
		{
			assert_int_equal(p.stage, (last + 1) % DEMO_STAGE_COUNT);
			last = p.stage;
			changes += 1;
		}
	}
	assert_int_equal(changes, 2 * DEMO_STAGE_COUNT - 1);
	assert_string_equal(demo_stage_name(DEMO_STAGE_CLOSE), "close");
	assert_string_equal(demo_stage_name(DEMO_STAGE_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_pick_and_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

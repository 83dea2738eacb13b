// Articulation links are bodies too: contacts on links and maximal joints onto links, in every solver
// (PGS and TGS solve them in their own sweeps; XPBD and DIRECT worlds in the articulations' TGS pass).
//   - a floating one-link articulation rests on the ground like a body: contact force m g;
//   - an arm swinging on a floating slab that rests on the ground does not make the slab walk, and the
//     slab dropped onto the ground lands without rebound or energy gained;
//   - a driven platform (a prismatic link) carries a box resting on it: the drive's effort is the weight
//     of platform and box, so drives feel contact loads through the articulation;
//   - an arm holds a tool body by a fixed joint at its tip: the drive's effort is the moment of both;
//   - a four-bar linkage closed by a maximal joint between two links of one articulation stays closed.
#include "contact_support.h"
#include "core_support.h"

#include <math.h>

static const double g = SCENE_GRAVITY;

static void step_ok(sn_world* world, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		sn_error err = sn_world_step(world);
		if (err != SN_ERR_OK)
		{
			fail_msg("step failed: %s (%s)", sn_error_name(err), sn_world_last_error_detail(world));
		}
	}
}

static sn_vec3 v3(double x, double y, double z)
{
	return sn_v3(x, y, z);
}

// ---- a link resting on the ground ---------------------------------------------------------------------------

static void test_link_rests_on_ground(void** state)
{
	(void)state;
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		sn_world* world = test_scene_world((sn_solver)s, 0.001);
		assert_sn_ok(scene_ground(world, v3(0, 0, 1), scene_material(0.5, 0.0), NULL));
		sn_link_def link = sn_default_link_def();
		link.mass = 1.0;
		link.inertia = sn_inertia_box(1.0, v3(0.1, 0.1, 0.1));
		sn_articulation_def ad = sn_default_articulation_def();
		ad.fixed_base = false;
		ad.base_pose.p = v3(0, 0, 0.12); // 2 cm above the ground
		sn_articulation_id art;
		assert_sn_ok(sn_create_articulation(world, &ad, &link, 1, &art));
		sn_shape_def sd = sn_default_shape_def();
		sd.body = sn_articulation_get_link_body(world, art, 0);
		sd.geometry = sn_geometry_box(v3(0.1, 0.1, 0.1));
		sd.material = scene_material(0.5, 0.0);
		sn_shape_id shape;
		assert_sn_ok(sn_create_shape(world, &sd, &shape));
		step_ok(world, 1000);
		double z = sn_body_get_pose(world, sd.body).p.z;
		double f = contact_force_z(world, sd.body);
		print_message("MEASURE %s: link box z = %.9f m, contact force %.12g N\n", sn_solver_name((sn_solver)s), z, f);
		// Rests within the slop (0.5 mm) on its face, never below it; the force is its weight at rest
		// (rounding of the solve, 1e-9 of m g).
		assert_true(z > 0.1 - 0.0005 - 1e-9 && z < 0.1 + 1e-6);
		assert_near(f, g, 1e-9 * g, "weight at rest");
		sn_world_destroy(world);
	}
}

// ---- a swinging arm on a resting base ----------------------------------------------------------------------

// The cases of the slab tests: every solver at 2, 4 and 8 windows (position iterations in PGS).
static const int slab_windows[] = { 2, 4, 8 };
enum
{
	SLAB_CASES = SN_SOLVER_COUNT * 3
};

// Case `c`'s world (1 ms) with the slab robot (scene_slab_robot: a 2 kg slab resting on the ground, friction
// 0.5) and its 1 kg arm free: no drive, no stop. *name is the solver's name, *windows the windows.
static sn_world* free_arm_slab(int c, sn_articulation_id* robot, sn_body_id* base, const char** name, int* windows)
{
	const sn_solver solver = (sn_solver)(c / 3);
	*windows = slab_windows[c % 3];
	*name = sn_solver_name(solver);
	sn_world* world = test_scene_world(solver, 0.001);
	assert_sn_ok(sn_world_set_iterations(world, *windows, 1));
	assert_sn_ok(scene_slab_robot(world, 2.0, v3(0.25, 0.25, 0.05), sn_quat_identity(), robot, base));
	const sn_drive none = sn_default_drive();
	assert_sn_ok(sn_articulation_set_drive(world, *robot, 0, &none));
	assert_sn_ok(sn_articulation_set_limit(world, *robot, 0, (sn_limit){ .enabled = false }));
	return world;
}

// The free-arm slab (free_arm_slab), each case. Thrown at 2 rad/s, the 1 kg arm swings through full turns
// for 3 s (it has no shape, so it passes the ground). The slab must stay where it is: the swing's largest
// horizontal pull (the arm's centripetal force, about 15 N at 7 rad/s) stays below the friction the weight
// gives, so there is no physical slip. In TGS the articulation's free-motion kick arrives whole before the
// first window; unless the contacts hold it (contact_solve_hold) the later windows find almost no normal
// impulse, hence no friction, and the slab walked 0.28 mm in these 3 s at 2 windows (1 mm in 6 s at 8).
// Bound: 20 um in 3 s; measured 1.1-4.4 um in TGS (and in XPBD and DIRECT, which step articulations by
// TGS), 0.02-6.9 um in PGS (the most at 2 iterations).
static void test_swinging_arm_does_not_walk_its_base(void** state)
{
	(void)state;
	for (int c = 0; c < SLAB_CASES; ++c)
	{
		sn_articulation_id robot;
		sn_body_id base;
		const char* name;
		int windows;
		sn_world* world = free_arm_slab(c, &robot, &base, &name, &windows);
		const sn_vec3 start = sn_body_get_pose(world, base).p;
		double walked = 0.0, turned = 0.0;
		for (int step = 0; step < 3000; ++step)
		{
			step_ok(world, 1);
			const sn_vec3 d = sn_sub(sn_body_get_pose(world, base).p, start);
			walked = fmax(walked, sqrt(d.x * d.x + d.y * d.y));
			turned = fmax(turned, fabs(sn_articulation_get_joint_position(world, robot, 0)));
		}
		print_message("MEASURE %s, %d windows: the slab walked %.3e m (the arm turned up to %.2f rad)\n", name, windows,
					  walked, turned);
		assert_true(turned > 3.0); // the arm swung over the top
		assert_below(walked, 20e-6, "the slab stays put");
		sn_world_destroy(world);
	}
}

// The same robot dropped: the slab's bottom 5 cm above the ground (it lands at 0.99 m/s, the arm swinging).
// Its contacts hold the kick in TGS, and the impact is held with it (an inelastic stop spread over the
// windows' shares): the energy (kinetic and gravity's) must never rise above its start (contacts and
// friction only take energy out; 1e-9 J for rounding), the slab must not rebound (restitution 0: its
// upward speed once it has touched stays below 1e-3 m/s, a thousandth of the impact; measured up to
// 2.2e-4 m/s at 2 windows) and must land within the contact slop (0.5 mm; measured 22 um deep at most).
// Every solver at 2, 4 and 8 windows, 2 s.
static double slab_energy(const sn_world* world, sn_articulation_id robot)
{
	double e = sn_articulation_get_kinetic_energy(world, robot);
	for (int i = 0; i < 2; ++i)
	{
		const sn_body_id b = sn_articulation_get_link_body(world, robot, i);
		e += sn_body_get_mass(world, b) * g * sn_body_get_center_of_mass(world, b).z;
	}
	return e;
}

static void test_dropped_slab_lands_without_energy(void** state)
{
	(void)state;
	for (int c = 0; c < SLAB_CASES; ++c)
	{
		sn_articulation_id robot;
		sn_body_id base;
		const char* name;
		int windows;
		sn_world* world = free_arm_slab(c, &robot, &base, &name, &windows);
		sn_transform pose = sn_articulation_get_link_pose(world, robot, 0);
		pose.p.z = 0.1;
		assert_sn_ok(sn_articulation_set_base_pose(world, robot, pose));
		const double e0 = slab_energy(world, robot);
		double most = e0, rebound = 0.0, lowest = INFINITY;
		bool touched = false;
		for (int step = 0; step < 2000; ++step)
		{
			step_ok(world, 1);
			most = fmax(most, slab_energy(world, robot));
			const double z = sn_body_get_pose(world, base).p.z;
			touched = touched || z < 0.0501;
			if (touched)
			{
				rebound = fmax(rebound, sn_body_get_linear_velocity(world, base).z);
			}
			lowest = fmin(lowest, z);
		}
		print_message("MEASURE %s, %d windows: energy at most %.3e J above its start, rebound %.3e m/s, lowest "
					  "centre %.6f m\n",
					  name, windows, most - e0, rebound, lowest);
		assert_true(touched);
		assert_below(most - e0, 1e-9, "no energy from the landing");
		assert_below(rebound, 1e-3, "an inelastic landing");
		assert_true(lowest > 0.05 - 0.0005);
		sn_world_destroy(world);
	}
}

// ---- a driven platform carrying a box -------------------------------------------------------------------------

static void test_platform_carries_box(void** state)
{
	(void)state;
	const double platform_mass = 3.0, box_mass = 2.0;
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		sn_world* world = test_scene_world((sn_solver)s, 0.001);
		sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
		links[1].parent = 0;
		links[1].joint_type = SN_LINK_JOINT_PRISMATIC;
		links[1].parent_frame.q = scene_x_to_z(); // slides along world z
		links[1].child_frame.q = scene_x_to_z();
		links[1].mass = platform_mass;
		links[1].inertia = sn_inertia_box(platform_mass, v3(0.5, 0.5, 0.05));
		links[1].drive[0] = sn_default_drive();
		links[1].drive[0].enabled = true;
		links[1].drive[0].stiffness = 1e6;
		links[1].drive[0].damping = 1e4;
		sn_articulation_def ad = sn_default_articulation_def();
		sn_articulation_id art;
		assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &art));
		sn_shape_def sd = sn_default_shape_def();
		sd.body = sn_articulation_get_link_body(world, art, 1);
		sd.geometry = sn_geometry_box(v3(0.5, 0.5, 0.05));
		sn_shape_id platform;
		assert_sn_ok(sn_create_shape(world, &sd, &platform));
		sn_body_id box;
		sn_transform pose = { v3(0, 0, 0.05 + 0.1), sn_quat_identity() };
		assert_sn_ok(scene_box(world, pose, 0.1, box_mass, sn_default_material(), &box, NULL));
		step_ok(world, 2000);
		double effort = 0.0;
		assert_sn_ok(sn_articulation_get_drive_efforts(world, art, &effort, 1));
		double expected = (platform_mass + box_mass) * g;
		double on_box = contact_force_z(world, box);
		print_message("MEASURE %s: platform drive effort %.12g N (weights %.12g N), force on the box %.12g N\n",
					  sn_solver_name((sn_solver)s), effort, expected, on_box);
		// At rest the drive carries both weights and the contact the box's (static equilibrium; the stiff
		// drive has settled to 1e-9 of the load by 2 s: its damping ratio is 2.2, time constant 0.01 s).
		assert_near(effort, expected, 1e-6 * expected, "static equilibrium");
		assert_near(on_box, box_mass * g, 1e-6 * box_mass * g, "static equilibrium");
		sn_world_destroy(world);
	}
}

// ---- an arm holding a tool ------------------------------------------------------------------------------------

static void test_arm_holds_tool(void** state)
{
	(void)state;
	const double arm_mass = 1.0, tool_mass = 0.5, reach = 0.6;
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		sn_world* world = test_scene_world((sn_solver)s, 0.001);
		// A horizontal arm along x from a hinge about y at the origin, its centre of mass at reach / 2.
		sn_link_def links[2] = { sn_default_link_def(), sn_default_link_def() };
		links[1].parent = 0;
		links[1].joint_type = SN_LINK_JOINT_REVOLUTE;
		links[1].parent_frame.q = scene_x_to_y();
		links[1].child_frame.q = scene_x_to_y();
		links[1].mass = arm_mass;
		links[1].inertia = sn_mat33_diag(0.01, 0.03, 0.03);
		links[1].center_of_mass = v3(0.5 * reach, 0, 0);
		links[1].drive[0] = sn_default_drive();
		links[1].drive[0].enabled = true;
		links[1].drive[0].stiffness = 1e6;
		links[1].drive[0].damping = 1e4;
		sn_articulation_def ad = sn_default_articulation_def();
		sn_articulation_id art;
		assert_sn_ok(sn_create_articulation(world, &ad, links, 2, &art));
		sn_body_id tool = test_body(world, v3(reach, 0, 0), tool_mass, sn_mat33_diag(1e-3, 1e-3, 1e-3));
		sn_fixed_joint_def fd = sn_default_fixed_joint_def();
		fd.base.body_a = sn_articulation_get_link_body(world, art, 1);
		fd.base.body_b = tool;
		fd.base.frame_a.p = v3(reach, 0, 0);
		sn_joint_id weld;
		assert_sn_ok(sn_create_fixed_joint(world, &fd, &weld));
		step_ok(world, 2000);
		double effort = 0.0;
		assert_sn_ok(sn_articulation_get_drive_efforts(world, art, &effort, 1));
		double expected = (arm_mass * 0.5 * reach + tool_mass * reach) * g; // the moment about the hinge
		sn_vec3 force;
		assert_sn_ok(sn_joint_get_reaction(world, weld, &force, NULL));
		sn_vec3 tool_at = sn_body_get_center_of_mass(world, tool);
		print_message("MEASURE %s: arm drive effort %.12g N*m (moments %.12g N*m), weld force z %.12g N, tool at "
					  "(%.3g, %.3g, %.3g)\n",
					  sn_solver_name((sn_solver)s), effort, expected, force.z, tool_at.x, tool_at.y, tool_at.z);
		// Static equilibrium: the drive's torque is the two moments (its sign: the drive pulls the arm up),
		// the weld carries the tool's weight. The tool sags below the tip by the drive's deflection,
		// moment / kp = 5.9e-6 rad, 3.5e-6 m at the tip; in TGS (and the TGS path of XPBD and DIRECT worlds)
		// also by the weld's own error: the articulation takes its whole step's free motion in the first of
		// n windows (artic/solve.c) while the tool gains its weight window by window, which stretches the
		// weld by g h^2 (n - 1) / (2n) = 4.3e-6 m per step, removed at erp 0.2 per step: 2.1e-5 m at rest.
		double sag = s == SN_SOLVER_PGS ? 5e-6 : 2.5e-5;
		assert_near(fabs(effort), expected, 1e-6 * expected, "static equilibrium");
		assert_near(force.z, tool_mass * g, 1e-6 * tool_mass * g, "the weld holds the tool's weight");
		assert_near(tool_at.x, reach, 1e-6, "the tip (the sag is vertical)");
		assert_near(tool_at.z, 0.0, sag, "the drive's deflection, and in TGS the weld's window error");
		sn_world_destroy(world);
	}
}

// ---- a four-bar linkage -------------------------------------------------------------------------------------

// A planar four-bar in the x-z plane, hinges about y: ground pivots O = (0, 0, 0) and B0 = (1, 0, 0), crank
// 0.4 m (link 1, from O), coupler 1 m (link 2, on the crank's end A), rocker 0.8 m (link 3, from B0): a tree
// of three revolute joints on a fixed base, closed by a six-axis joint locking x and z between the
// coupler's and the rocker's ends (the in-plane point; the plane itself the tree already holds, so any
// more rows would repeat it). Returns the joint; damping (N*m*s/rad) on the tree's joints.
static sn_joint_id make_four_bar(sn_world* world, double damping, sn_articulation_id* out)
{
	const sn_vec3 a = v3(0, 0, 0.4), b0 = v3(1, 0, 0);
	// The loop point P: |P - A| = 1, |P - B0| = 0.8, above the ground line.
	double dx = b0.x - a.x, dz = b0.z - a.z, d = sqrt(dx * dx + dz * dz);
	double along = (1.0 - 0.64 + d * d) / (2.0 * d), off = sqrt(1.0 - along * along);
	sn_vec3 p = v3(a.x + along * dx / d + off * dz / d, 0, a.z + along * dz / d - off * dx / d);
	if (p.z < 0.0)
	{
		p = v3(a.x + along * dx / d - off * dz / d, 0, a.z + along * dz / d + off * dx / d);
	}
	sn_link_def l[4];
	for (int i = 0; i < 4; ++i)
	{
		l[i] = sn_default_link_def();
		l[i].mass = 1.0;
		l[i].inertia = sn_mat33_diag(0.01, 0.01, 0.01);
		l[i].joint_damping = damping;
	}
	const sn_quat qy = scene_x_to_y();
	const sn_vec3 pivots[4] = { v3(0, 0, 0), v3(0, 0, 0), a, b0 };
	const int parents[4] = { -1, 0, 1, 0 };
	const sn_vec3 ends[4] = { v3(0, 0, 0), a, p, p };
	for (int i = 1; i < 4; ++i)
	{
		l[i].parent = parents[i];
		l[i].joint_type = SN_LINK_JOINT_REVOLUTE;
		l[i].parent_frame.p = pivots[i];
		l[i].parent_frame.q = qy;
		l[i].child_frame.q = qy;
		l[i].center_of_mass = sn_scale(0.5, sn_sub(ends[i], pivots[i]));
	}
	sn_articulation_def ad = sn_default_articulation_def();
	assert_sn_ok(sn_create_articulation(world, &ad, l, 4, out));
	sn_six_axis_joint_def jd = sn_default_six_axis_joint_def();
	jd.base.body_a = sn_articulation_get_link_body(world, *out, 2);
	jd.base.body_b = sn_articulation_get_link_body(world, *out, 3);
	jd.base.frame_a.p = sn_sub(p, a);
	jd.base.frame_b.p = sn_sub(p, b0);
	for (int k = 0; k < SN_AXIS_COUNT; ++k)
	{
		jd.axes[k].mode = SN_AXIS_FREE;
	}
	jd.axes[SN_AXIS_X].mode = SN_AXIS_LOCKED;
	jd.axes[SN_AXIS_Z].mode = SN_AXIS_LOCKED;
	sn_joint_id joint;
	assert_sn_ok(sn_create_six_axis_joint(world, &jd, &joint));
	return joint;
}

static double loop_gap(const sn_world* world, sn_joint_id joint)
{
	return hypot(sn_joint_get_coordinate(world, joint, SN_AXIS_X), sn_joint_get_coordinate(world, joint, SN_AXIS_Z));
}

static void test_four_bar(void** state)
{
	(void)state;
	for (int s = 0; s < SN_SOLVER_COUNT; ++s)
	{
		// Swinging freely under gravity for 5 s (the crank turns up to ~5 rad/s): the rows hold the loop at
		// the pose each solve starts from, and the arcs its links then move along open it by
		// (w h)^2 L / 2 ~ 1.3e-5 m per step (w 5 rad/s, h 1 ms, L 1 m), which the split impulse removes at erp
		// 0.2 per step: ~6e-5 m at most. PGS solves once per step (one sub-advance for TGS's eight): its
		// position sweeps leave the loop's rows less converged, 2e-4 m.
		sn_world* world = test_scene_world((sn_solver)s, 0.001);
		sn_articulation_id art;
		sn_joint_id joint = make_four_bar(world, 0.0, &art);
		double worst = 0.0;
		for (int i = 0; i < 5000; ++i)
		{
			step_ok(world, 1);
			worst = fmax(worst, loop_gap(world, joint));
		}
		double q[3];
		assert_sn_ok(sn_articulation_get_joint_positions(world, art, q, 3));
		print_message("MEASURE %s: four-bar swinging 5 s: worst loop gap %.3g m (crank at %.3f rad)\n",
					  sn_solver_name((sn_solver)s), worst, q[0]);
		assert_true(fabs(q[0]) > 1.0); // it did swing
		assert_below(worst, s == SN_SOLVER_PGS ? 2e-4 : 6e-5, "the arcs' drift per step, corrected at erp");
		sn_world_destroy(world);

		// Damped, it comes to rest: with no motion the loop closes to the solve's rounding (1e-9 m; the
		// issue's 1e-6 m for DIRECT holds in every solver).
		world = test_scene_world((sn_solver)s, 0.001);
		joint = make_four_bar(world, 2.0, &art);
		step_ok(world, 5000);
		double gap = loop_gap(world, joint);
		print_message("MEASURE %s: four-bar at rest: loop gap %.3g m\n", sn_solver_name((sn_solver)s), gap);
		assert_below(gap, 1e-6, "closed at rest");
		sn_world_destroy(world);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_rests_on_ground),
		cmocka_unit_test(test_swinging_arm_does_not_walk_its_base),
		cmocka_unit_test(test_dropped_slab_lands_without_energy),
		cmocka_unit_test(test_platform_carries_box),
		cmocka_unit_test(test_arm_holds_tool),
		cmocka_unit_test(test_four_bar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// Same inputs, same bits out: a scene with every joint type, with limits, motors, springs, a breakable
// joint, a kinematic and a static body, stepped from scratch twice (and interleaved with a twin world)
// gives identical state hashes; and the hashes equal golden constants, so a release build and a
// sanitizer build (different optimisation, same -ffp-contract=off) must produce the same bits. A second
// scene has shapes of every kind falling, tumbling and swinging through each other: its hash covers the
// contact manifolds, feature ids and warm starts (sn_world_state_hash), folded over the whole run. A third
// drives articulations along each route their PD drives take in TGS, the vector lanes of the inverse's
// windows among them.
//
// A change that alters the solver's numerics on purpose updates the golden constants in the same commit
// and says so; a build flavour that disagrees with them has a determinism bug (uninitialised memory,
// fused multiply-adds, evaluation order), which is to be fixed, not re-goldened.
#include "core_support.h"

#include <inttypes.h>

typedef struct everything
{
	sn_world* world;
	sn_joint_id breakable;
} everything;

static sn_body_id box(sn_world* world, sn_body_type type, sn_vec3 at, double mass, sn_vec3 half_extents)
{
	sn_body_def bd = sn_default_body_def();
	bd.type = type;
	bd.pose.p = at;
	bd.mass = mass;
	bd.inertia = sn_inertia_box(mass, half_extents);
	sn_body_id id;
	assert_sn_ok(sn_create_body(world, &bd, &id));
	return id;
}

static everything build_everything(sn_solver solver)
{
	everything e;
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	assert_sn_ok(sn_world_create(&wd, &e.world));
	sn_world* w = e.world;
	sn_body_id post = box(w, SN_BODY_STATIC, sn_v3(0, 0, 2), 1.0, sn_v3(0.1, 0.1, 0.1));
	sn_body_def kd = sn_default_body_def();
	kd.type = SN_BODY_KINEMATIC;
	kd.pose.p = sn_v3(3, 0, 2);
	kd.linear_velocity = sn_v3(0, 0.2, 0);
	kd.angular_velocity = sn_v3(0, 0, 0.5);
	sn_body_id carrier;
	assert_sn_ok(sn_create_body(w, &kd, &carrier));
	sn_vec3 rod = sn_v3(0.25, 0.05, 0.05);
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	sn_joint_id id;

	// Hinge from the static post, with a limit and a motor.
	sn_body_id arm = box(w, SN_BODY_DYNAMIC, sn_v3(0.25, 0, 2), 1.0, rod);
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_a = post;
	hd.base.body_b = arm;
	hd.base.frame_a.q = x_to_y;
	hd.base.frame_b = (sn_transform){ sn_v3(-0.25, 0, 0), x_to_y };
	hd.limit = (sn_limit){ true, -1.0, 1.0, sn_soft_rigid() };
	hd.motor = (sn_motor){ true, 1.0, 2.0 };
	assert_sn_ok(sn_create_hinge_joint(w, &hd, &id));

	// Prismatic on the arm's end, with a limit and a soft spring.
	sn_body_id slider = box(w, SN_BODY_DYNAMIC, sn_v3(0.75, 0, 2), 0.5, rod);
	sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
	pd.base.body_a = arm;
	pd.base.body_b = slider;
	pd.base.frame_a.p = sn_v3(0.25, 0, 0);
	pd.base.frame_b.p = sn_v3(-0.25, 0, 0);
	pd.limit = (sn_limit){ true, -0.2, 0.2, sn_soft_stiffness(2000.0, 20.0) };
	pd.spring = (sn_spring){ true, 0.1, sn_soft_stiffness(50.0, 2.0), INFINITY };
	assert_sn_ok(sn_create_prismatic_joint(w, &pd, &id));

	// Cylindrical to the world, tilted, with an angular motor and a linear limit.
	sn_quat tilt = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.4);
	sn_body_def cd_body = sn_default_body_def();
	cd_body.pose = (sn_transform){ sn_v3(-1, 0, 1), tilt };
	cd_body.inertia = sn_inertia_cylinder(1.0, 0.05, 0.4);
	sn_body_id drum;
	assert_sn_ok(sn_create_body(w, &cd_body, &drum));
	sn_cylindrical_joint_def cd = sn_default_cylindrical_joint_def();
	cd.base.body_b = drum;
	cd.base.frame_a = (sn_transform){ sn_v3(-1, 0, 1), tilt };
	cd.linear_limit = (sn_limit){ true, -0.3, 0.1, sn_soft_rigid() };
	cd.angular_motor = (sn_motor){ true, 4.0, 0.5 };
	assert_sn_ok(sn_create_cylindrical_joint(w, &cd, &id));

	// Spherical from the kinematic carrier (0.3 m out from its centre), hung 0.5 m below, with an
	// elliptic cone and a soft twist limit.
	sn_body_id ball = box(w, SN_BODY_DYNAMIC, sn_v3(3.3, 0, 1.5), 2.0, sn_v3(0.1, 0.1, 0.1));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sn_quat down = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI);
	sd.base.body_a = carrier;
	sd.base.body_b = ball;
	sd.base.frame_a = (sn_transform){ sn_v3(0.3, 0, 0), down };
	sd.base.frame_b = (sn_transform){ sn_v3(0, 0, 0.5), down };
	sd.swing = (sn_cone_limit){ true, 0.4, 0.7, sn_soft_rigid() };
	sd.twist = (sn_limit){ true, -0.5, 0.5, sn_soft_frequency(5.0, 0.7) };
	assert_sn_ok(sn_create_spherical_joint(w, &sd, &id));

	// Distance below the ball: a spring with a min and max length.
	sn_body_id weight = box(w, SN_BODY_DYNAMIC, sn_v3(3.3, 0, 0.7), 1.0, sn_v3(0.05, 0.05, 0.05));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_a = ball;
	dd.base.body_b = weight;
	dd.length = 0.8;
	dd.spring_enabled = true;
	dd.spring = sn_soft_stiffness(300.0, 3.0);
	dd.limit = (sn_limit){ true, 0.6, 0.85, sn_soft_rigid() };
	assert_sn_ok(sn_create_distance_joint(w, &dd, &id));

	// Six-axis to the world: X limited, RX free with a motor, RY with a spring, the rest locked.
	sn_body_id gimbal = box(w, SN_BODY_DYNAMIC, sn_v3(1.5, 1, 2), 1.5, sn_v3(0.2, 0.1, 0.05));
	sn_six_axis_joint_def xd = sn_default_six_axis_joint_def();
	xd.base.body_b = gimbal;
	xd.base.frame_a.p = sn_v3(1.5, 1, 2);
	xd.axes[SN_AXIS_X].mode = SN_AXIS_LIMITED;
	xd.axes[SN_AXIS_X].lower = -0.1;
	xd.axes[SN_AXIS_X].upper = 0.1;
	xd.axes[SN_AXIS_X].motor = (sn_motor){ true, 0.3, 5.0 };
	xd.axes[SN_AXIS_RX].mode = SN_AXIS_FREE;
	xd.axes[SN_AXIS_RX].motor = (sn_motor){ true, 2.0, 0.2 };
	xd.axes[SN_AXIS_RY].mode = SN_AXIS_FREE;
	xd.axes[SN_AXIS_RY].spring = (sn_spring){ true, 0.2, sn_soft_stiffness(20.0, 0.5), 3.0 };
	assert_sn_ok(sn_create_six_axis_joint(w, &xd, &id));

	// Fixed, breakable: a 4 kg weight welded 0.3 m out from the slider's end. Its weight (39 N) and the
	// arm's swing load the weld; it breaks when the force passes 60 N.
	sn_body_id lump = box(w, SN_BODY_DYNAMIC, sn_v3(1.3, 0, 2), 4.0, sn_v3(0.05, 0.05, 0.05));
	sn_fixed_joint_def fd = sn_default_fixed_joint_def();
	fd.base.body_a = slider;
	fd.base.body_b = lump;
	fd.base.frame_a.p = sn_v3(0.55, 0, 0);
	fd.base.break_force = 60.0;
	fd.base.user_data = 7;
	assert_sn_ok(sn_create_fixed_joint(w, &fd, &e.breakable));
	return e;
}

typedef struct run_result
{
	uint64_t hash;
	int broke_at; // step at which the weld broke, -1 if it did not
} run_result;

static run_result run_everything(sn_solver solver, int steps)
{
	everything e = build_everything(solver);
	run_result r = { 0, -1 };
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(e.world));
		int count;
		sn_world_get_break_events(e.world, &count);
		if (count > 0 && r.broke_at < 0)
		{
			r.broke_at = i + 1;
		}
	}
	r.hash = sn_world_state_hash(e.world);
	sn_world_destroy(e.world);
	return r;
}

static const int golden_steps = 1500;
// sn_world_state_hash after golden_steps steps of build_everything, per solver.
static const uint64_t golden_pgs = 0x0282b67dcf37e9a4ull;
static const uint64_t golden_tgs = 0x6d11fda647480725ull;
static const uint64_t golden_xpbd = 0xcf19e72a89e1672cull;
static const uint64_t golden_direct = 0x45ddad03490c10fcull;

static void check_solver(sn_solver solver, uint64_t golden)
{
	run_result a = run_everything(solver, golden_steps);
	run_result b = run_everything(solver, golden_steps);
	print_message("GOLDEN %s hash 0x%016" PRIx64 "ull, weld broke at step %d\n", sn_solver_name(solver), a.hash,
				  a.broke_at);
	assert_true(a.hash == b.hash);
	assert_int_equal(a.broke_at, b.broke_at);
	assert_true(a.broke_at > 1); // the breakable joint took part, and broke mid-run
	if (a.hash != golden)
	{
		fail_msg("%s: state hash 0x%016" PRIx64 " differs from the golden 0x%016" PRIx64
				 " (a determinism bug in this build flavour, or a numerics change that must update the constant)",
				 sn_solver_name(solver), a.hash, golden);
	}
}

static void test_golden_pgs(void** state)
{
	(void)state;
	check_solver(SN_SOLVER_PGS, golden_pgs);
}

static void test_golden_xpbd(void** state)
{
	(void)state;
	check_solver(SN_SOLVER_XPBD, golden_xpbd);
}

static void test_golden_direct(void** state)
{
	(void)state;
	check_solver(SN_SOLVER_DIRECT, golden_direct);
}

static void test_golden_tgs(void** state)
{
	(void)state;
	check_solver(SN_SOLVER_TGS, golden_tgs);
}

// ---- contacts ------------------------------------------------------------------------------------------

// Shapes of every kind in motion under gravity (no contact forces yet: they pass through each other, so
// pairs begin, persist and end all the time): a ground plane, a mesh ramp, a grid of jittered spheres
// falling onto it, tumbling hulls, a small box pyramid, two self-colliding capsule chains swinging down
// from fixed bases, and a sensor volume.
static sn_world* build_contacts(sn_solver solver)
{
	sn_world_def wd = scene_world_def(solver, 1.0 / 240.0);
	sn_world* w;
	assert_sn_ok(sn_world_create(&wd, &w));
	sn_material m = scene_material(SCENE_CONTACT_FRICTION, 0.0);
	assert_sn_ok(scene_ground(w, sn_v3(0, 0, 1), m, NULL));
	const sn_vec3 ramp[4] = { { -1, -1, 0.5 }, { 1, -1, 0.1 }, { 1, 1, 0.1 }, { -1, 1, 0.5 } };
	const int32_t idx[6] = { 0, 1, 2, 0, 2, 3 };
	sn_shape_def sd = sn_default_shape_def();
	sd.geometry = sn_geometry_mesh(ramp, 4, idx, 2);
	sn_shape_id sid;
	assert_sn_ok(sn_create_shape(w, &sd, &sid));
	for (uint32_t i = 0; i < 48; ++i)
	{
		sn_body_id b;
		sn_vec3 p = sn_v3(-0.6 + 0.25 * (i % 6) + scene_c7_jitter(i, 1),
						  -0.5 + 0.25 * ((i / 6) % 4) + scene_c7_jitter(i, 2), 0.8 + 0.3 * (i / 24));
		assert_sn_ok(scene_ball(w, p, 0.1, 1.0, m, &b, NULL));
	}
	const sn_vec3 pts[7] = { { 0.12, 0, 0 },    { -0.1, 0.02, 0 }, { 0, 0.11, 0.01 },   { 0, -0.1, 0 },
							 { 0.01, 0, 0.13 }, { 0, 0.02, -0.1 }, { 0.07, 0.07, 0.07 } };
	for (int i = 0; i < 6; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_v3(-0.5 + 0.2 * i, 1.5, 0.4 + 0.1 * i);
		bd.angular_velocity = sn_v3(1.0 + i, -2.0, 0.5 * i);
		sn_body_id b;
		assert_sn_ok(sn_create_body(w, &bd, &b));
		sd = sn_default_shape_def();
		sd.body = b;
		sd.geometry = sn_geometry_hull(pts, 7);
		assert_sn_ok(sn_create_shape(w, &sd, &sid));
		assert_sn_ok(sn_body_set_mass_from_shapes(w, b, 800.0));
	}
	for (int k = 0, at = 0; k < 5; ++k)
	{
		for (int i = 0; i < 5 - k; ++i, ++at)
		{
			sn_transform pose = { sn_v3(2.0 + (i - 0.5 * (4 - k)) * 0.2, 0, 0.1 + 0.2 * k), sn_quat_identity() };
			sn_body_id b;
			assert_sn_ok(scene_box(w, pose, 0.1, 1.0, m, &b, NULL));
		}
	}
	for (int c = 0; c < 2; ++c)
	{
		sn_link_def links[6];
		for (int l = 0; l < 6; ++l)
		{
			links[l] = sn_default_link_def();
			links[l].mass = 0.2;
			if (l > 0)
			{
				links[l].parent = l - 1;
				links[l].parent_frame = (sn_transform){ sn_v3(0.1, 0, 0), l % 2 ? scene_x_to_y() : scene_x_to_z() };
				links[l].child_frame = (sn_transform){ sn_v3(-0.1, 0, 0), links[l].parent_frame.q };
			}
		}
		sn_articulation_def ad = sn_default_articulation_def();
		ad.base_pose.p = sn_v3(-2.0, 0.3 * c, 0.9);
		ad.self_collision = true;
		sn_articulation_id art;
		assert_sn_ok(sn_create_articulation(w, &ad, links, 6, &art));
		for (int l = 0; l < 6; ++l)
		{
			sd = sn_default_shape_def();
			sd.body = sn_articulation_get_link_body(w, art, l);
			sd.geometry = sn_geometry_capsule(0.04, 0.08);
			sd.local_pose.q = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI);
			assert_sn_ok(sn_create_shape(w, &sd, &sid));
		}
	}
	sd = sn_default_shape_def();
	sd.geometry = sn_geometry_box(sn_v3(0.5, 0.5, 0.3));
	sd.local_pose.p = sn_v3(0, 0, 0.3);
	sd.is_sensor = true;
	assert_sn_ok(sn_create_shape(w, &sd, &sid));
	return w;
}

// Folds a state hash into a run's hash, byte by byte (FNV-1a).
static void fold_hash(uint64_t* run, uint64_t h)
{
	for (int k = 0; k < 8; ++k)
	{
		*run ^= (h >> (8 * k)) & 0xffu;
		*run *= 1099511628211ull;
	}
}

typedef struct contact_run
{
	uint64_t hash; // state hashes folded every 10 steps
	uint64_t points, begins, ends, sensor_events;
} contact_run;

static contact_run run_contacts(sn_solver solver, int steps)
{
	sn_world* w = build_contacts(solver);
	contact_run r = { 14695981039346656037ull, 0, 0, 0, 0 };
	for (int i = 0; i < steps; ++i)
	{
		assert_sn_ok(sn_world_step(w));
		sn_contact_events e = sn_world_get_contact_events(w);
		r.points += (uint64_t)sn_world_get_collision_stats(w).points;
		r.begins += (uint64_t)e.begin_count;
		r.ends += (uint64_t)e.end_count;
		r.sensor_events += (uint64_t)(e.sensor_begin_count + e.sensor_end_count);
		if (i % 10 == 9)
		{
			fold_hash(&r.hash, sn_world_state_hash(w));
		}
	}
	sn_world_destroy(w);
	return r;
}

static const int golden_contact_steps = 1200;
// The folded hash of run_contacts over golden_contact_steps steps (TGS), the same in the release and the
// sanitizer builds. Changed with the contact solver (contacts now exert forces: the scene settles).
static const uint64_t golden_contacts_tgs = 0x9594d4e6806143baull;

static void test_golden_contacts(void** state)
{
	(void)state;
	contact_run a = run_contacts(SN_SOLVER_TGS, golden_contact_steps);
	contact_run b = run_contacts(SN_SOLVER_TGS, golden_contact_steps);
	print_message("GOLDEN contacts tgs hash 0x%016" PRIx64 "ull: %" PRIu64 " points, %" PRIu64 " begins, %" PRIu64
				  " ends, %" PRIu64 " sensor events\n",
				  a.hash, a.points, a.begins, a.ends, a.sensor_events);
	assert_true(a.hash == b.hash);
	// The scene does what it is for: many contacts, pairs beginning and ending (fewer end: what falls through
	// the ground stays in the plane's half-space), the sensor visited.
	assert_true(a.points > 10000 && a.begins > 100 && a.ends > 50 && a.sensor_events > 10);
	if (a.hash != golden_contacts_tgs)
	{
		fail_msg("contacts: folded state hash 0x%016" PRIx64 " differs from the golden 0x%016" PRIx64
				 " (a determinism bug in this build flavour, or a numerics change that must update the constant)",
				 a.hash, golden_contacts_tgs);
	}
}

// Articulations under PD control on the three routes their drives take in TGS (artic/solve.c): the arm on
// a fixed base, whose windows multiply by (M + A)^-1 (artic_drive_inverse, two dofs to a vector lane); a
// 20-link chain on a fixed base (more dofs than the inverse takes) and a 6-link chain on a floating base,
// whose windows take the articulated passes; and an arm with one limit within reach, whose drives take the
// general rows. The drives' targets move every step.
typedef struct drive_run
{
	uint64_t hash; // state hashes folded every 10 steps
	long dense, passes, general;
} drive_run;

static sn_articulation_id driven_chain(sn_world* w, int n, bool fixed_base)
{
	sn_articulation_id art;
	assert_sn_ok(scene_artic_chain(w, n, true, &art));
	if (!fixed_base)
	{
		// The same chain again on a floating base, its root link under gravity too.
		sn_link_def links[7];
		assert_true(n + 1 <= 7); // the base and n links
		for (int l = 0; l <= n; ++l)
		{
			assert_sn_ok(sn_articulation_get_link_def(w, art, l, links + l));
		}
		assert_sn_ok(sn_destroy_articulation(w, art));
		sn_articulation_def ad = sn_default_articulation_def();
		ad.fixed_base = false;
		ad.base_pose.p = sn_v3(0, 2, 1);
		assert_sn_ok(sn_create_articulation(w, &ad, links, n + 1, &art));
	}
	for (int d = 0; d < sn_articulation_get_dof_count(w, art); ++d)
	{
		sn_drive drive = sn_default_drive();
		drive.enabled = true;
		drive.stiffness = 2e3;
		drive.damping = 50.0;
		assert_sn_ok(sn_articulation_set_drive(w, art, d, &drive));
	}
	return art;
}

static drive_run run_drives(int steps)
{
	sn_world* w;
	sn_world_def wd = scene_world_def(SN_SOLVER_TGS, 0.001);
	assert_sn_ok(sn_world_create(&wd, &w));
	sn_articulation_id arm, limited, chains[2];
	assert_sn_ok(scene_arm(w, &arm));
	assert_sn_ok(scene_arm(w, &limited));
	sn_limit limit = { .enabled = true, .lower = -0.05, .upper = 0.05 };
	assert_sn_ok(sn_articulation_set_limit(w, limited, 0, limit));
	chains[0] = driven_chain(w, 20, true);
	chains[1] = driven_chain(w, 6, false);
	drive_run r = { 14695981039346656037ull, 0, 0, 0 };
	for (int i = 0; i < steps; ++i)
	{
		const double t = 0.001 * i;
		for (int d = 0; d < SCENE_ARM_LINKS; ++d)
		{
			assert_sn_ok(sn_articulation_set_drive_target(w, arm, d, 0.5 * sin(3.0 * t + d), 1.5 * cos(3.0 * t + d)));
		}
		assert_sn_ok(sn_articulation_set_drive_target(w, chains[0], 3, 0.2 * sin(5.0 * t), 0.0));
		assert_sn_ok(sn_articulation_set_drive_target(w, chains[1], 2, -0.3 * sin(4.0 * t), 0.0));
		assert_sn_ok(sn_world_step(w));
		const sn_solver_stats st = sn_world_get_solver_stats(w);
		r.dense += st.artic_drive_path_dense;
		r.passes += st.artic_drive_path_windows;
		r.general += st.artic_drive_path_leaves;
		if (i % 10 == 9)
		{
			fold_hash(&r.hash, sn_world_state_hash(w));
		}
	}
	sn_world_destroy(w);
	return r;
}

static const int golden_drive_steps = 1000;
// The folded hash of run_drives over golden_drive_steps steps, the same in every build flavour.
static const uint64_t golden_drives_tgs = 0xf5397c4d6594bc99ull;

static void test_golden_drives(void** state)
{
	(void)state;
	drive_run a = run_drives(golden_drive_steps);
	drive_run b = run_drives(golden_drive_steps);
	print_message("GOLDEN drives tgs hash 0x%016" PRIx64 "ull: %ld solves through the inverse, %ld windows on the "
				  "drive path, %ld returns to the general rows\n",
				  a.hash, a.dense, a.passes, a.general);
	assert_true(a.hash == b.hash);
	// Every route is taken: the free arm's solve through the inverse each step but not the limited arm's
	// (its drives are among the general rows), and more windows on the drive path than the inverse's (the
	// chains' passes).
	assert_true(a.dense >= golden_drive_steps && a.dense < 2 * golden_drive_steps && a.passes > 8 * a.dense);
	if (a.hash != golden_drives_tgs)
	{
		fail_msg("drives: folded state hash 0x%016" PRIx64 " differs from the golden 0x%016" PRIx64
				 " (a determinism bug in this build flavour, or a numerics change that must update the constant)",
				 a.hash, golden_drives_tgs);
	}
}

// Two worlds built alike and stepped alternately stay identical step by step: no state is shared
// between worlds, and no step depends on anything but its own world.
static void test_interleaved_twins(void** state)
{
	(void)state;
	everything a = build_everything(SN_SOLVER_TGS);
	everything b = build_everything(SN_SOLVER_TGS);
	everything other = build_everything(SN_SOLVER_PGS);
	for (int i = 0; i < 300; ++i)
	{
		assert_sn_ok(sn_world_step(a.world));
		assert_sn_ok(sn_world_step(other.world));
		assert_sn_ok(sn_world_step(b.world));
		assert_true(sn_world_state_hash(a.world) == sn_world_state_hash(b.world));
	}
	assert_true(sn_world_state_hash(a.world) != sn_world_state_hash(other.world));
	sn_world_destroy(a.world);
	sn_world_destroy(b.world);
	sn_world_destroy(other.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_pgs),        cmocka_unit_test(test_golden_tgs),
		cmocka_unit_test(test_golden_xpbd),       cmocka_unit_test(test_golden_direct),
		cmocka_unit_test(test_interleaved_twins), cmocka_unit_test(test_golden_contacts),
		cmocka_unit_test(test_golden_drives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

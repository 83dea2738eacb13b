// The articulation API: every bad def and setter argument rejected with its typed error and nothing
// changed; ids; round trips; determinism; no allocation inside a step.
#include "artic_support.h"

#include <math.h>

// What "nothing changed" means for a world: same state hash, object counts and allocator bytes.
typedef struct world_mark
{
	uint64_t hash;
	int articulations;
	int mimics;
	size_t bytes;
} world_mark;

static world_mark mark(const sn_world* world)
{
	world_mark m = { sn_world_state_hash(world), sn_world_get_articulation_count(world),
					 sn_world_get_mimic_joints(world, NULL, 0), sn_world_get_memory_stats(world).bytes_in_use };
	return m;
}

static void assert_unchanged(const sn_world* world, world_mark before, const char* what)
{
	world_mark after = mark(world);
	if (after.hash != before.hash || after.articulations != before.articulations || after.mimics != before.mimics ||
		after.bytes != before.bytes)
	{
		fail_msg("%s changed the world (hash %llx -> %llx, articulations %d -> %d, mimics %d -> %d, bytes %zu -> %zu)",
				 what, (unsigned long long)before.hash, (unsigned long long)after.hash, before.articulations,
				 after.articulations, before.mimics, after.mimics, before.bytes, after.bytes);
	}
}

// A valid three-link def (base, hinge, ball joint) to spoil one field at a time.
static void valid_links(sn_link_def* links)
{
	links[0] = sn_default_link_def();
	links[1] = hinge_link(0, sn_v3(0, 0, 0), 1.0, 0.5, sn_mat33_diag(0.1, 0.1, 0.1));
	links[2] = hinge_link(1, sn_v3(1, 0, 0), 1.0, 0.5, sn_mat33_diag(0.1, 0.1, 0.1));
	links[2].joint_type = SN_LINK_JOINT_SPHERICAL;
}

typedef void (*spoil_fn)(sn_articulation_def* def, sn_link_def* links);

#define SPOIL(name, ...)                                                                                               \
	static void name(sn_articulation_def* def, sn_link_def* links)                                                     \
	{                                                                                                                  \
		(void)def;                                                                                                     \
		(void)links;                                                                                                   \
		__VA_ARGS__;                                                                                                   \
	}

SPOIL(base_pose_nan, def->base_pose.p.x = NAN)
SPOIL(base_quat_zero, def->base_pose.q = (sn_quat){ 0, 0, 0, 0 })
SPOIL(base_velocity_inf, def->base_linear_velocity.z = INFINITY)
SPOIL(gravity_scale_nan, def->gravity_scale = NAN)
SPOIL(base_has_parent, links[0].parent = 0)
SPOIL(parent_self, links[1].parent = 1)
SPOIL(parent_later, links[1].parent = 2)
SPOIL(parent_minus_one, links[2].parent = -1)
SPOIL(parent_negative, links[2].parent = -7)
SPOIL(joint_type_unknown, links[1].joint_type = (sn_link_joint_type)9)
SPOIL(mass_zero, links[1].mass = 0.0)
SPOIL(mass_negative, links[2].mass = -1.0)
SPOIL(mass_nan, links[1].mass = NAN)
SPOIL(base_mass_zero, links[0].mass = 0.0)
SPOIL(inertia_negative, links[1].inertia.cy.y = -0.1)
SPOIL(inertia_asymmetric, links[1].inertia.cx.y = 0.05)
SPOIL(inertia_nan, links[2].inertia.cz.z = NAN)
SPOIL(com_inf, links[1].center_of_mass.y = INFINITY)
SPOIL(parent_frame_zero_quat, links[1].parent_frame.q = (sn_quat){ 0, 0, 0, 0 })
SPOIL(child_frame_zero_quat, links[2].child_frame.q = (sn_quat){ 0, 0, 0, 0 })
SPOIL(parent_frame_nan, links[2].parent_frame.p.x = NAN)
SPOIL(parent_frame_far, links[1].parent_frame.p.z = 1e308)
SPOIL(child_frame_far, links[2].child_frame.p.x = -1.5 * SN_MAX_OFFSET)
SPOIL(limit_order, links[1].limit[0] = (sn_limit){ true, 1.0, -1.0, sn_soft_rigid() })
SPOIL(limit_nan, links[2].limit[2] = (sn_limit){ true, NAN, 1.0, sn_soft_rigid() })
SPOIL(limit_soft_negative, links[1].limit[0] = (sn_limit){ true, -1.0, 1.0, sn_soft_stiffness(-5.0, 1.0) })
SPOIL(limit_soft_kind, links[1].limit[0] = (sn_limit){ true, -1.0, 1.0, { (sn_soft_kind)7, 0, 0, 0, 0, 0, 0 } })
SPOIL(drive_stiffness_negative, links[1].drive[0].stiffness = -1.0)
SPOIL(drive_damping_nan, links[2].drive[1].damping = NAN)
SPOIL(drive_max_force_negative, links[1].drive[0].max_force = -3.0)
SPOIL(drive_max_force_nan, links[1].drive[0].max_force = NAN)
SPOIL(drive_target_inf, links[2].drive[2].target_position = INFINITY)
SPOIL(drive_type_unknown, links[1].drive[0].type = (sn_drive_type)5)
SPOIL(damping_negative, links[1].joint_damping = -0.1)
SPOIL(friction_negative, links[2].joint_friction = -0.1)
SPOIL(armature_negative, links[1].armature = -1e-3)
SPOIL(armature_inf, links[1].armature = INFINITY)
SPOIL(max_velocity_zero, links[1].max_joint_velocity = 0.0)
SPOIL(max_velocity_nan, links[2].max_joint_velocity = NAN)
SPOIL(initial_position_nan, links[1].initial_position[0] = NAN)
SPOIL(initial_velocity_inf, links[2].initial_velocity[1] = INFINITY)

static void test_bad_defs_rejected(void** state)
{
	(void)state;
	static const struct
	{
		const char* name;
		spoil_fn spoil;
		sn_error error;
	} cases[] = {
		{ "base pose NaN", base_pose_nan, SN_ERR_NOT_FINITE },
		{ "base quaternion zero", base_quat_zero, SN_ERR_ZERO_AXIS },
		{ "base velocity inf", base_velocity_inf, SN_ERR_NOT_FINITE },
		{ "gravity scale NaN", gravity_scale_nan, SN_ERR_NOT_FINITE },
		{ "base with a parent", base_has_parent, SN_ERR_TOPOLOGY },
		{ "parent is itself", parent_self, SN_ERR_TOPOLOGY },
		{ "parent is a later link", parent_later, SN_ERR_TOPOLOGY },
		{ "second root", parent_minus_one, SN_ERR_TOPOLOGY },
		{ "negative parent", parent_negative, SN_ERR_TOPOLOGY },
		{ "unknown joint type", joint_type_unknown, SN_ERR_INVALID_ARGUMENT },
		{ "zero mass", mass_zero, SN_ERR_NON_POSITIVE_MASS },
		{ "negative mass", mass_negative, SN_ERR_NON_POSITIVE_MASS },
		{ "NaN mass", mass_nan, SN_ERR_NOT_FINITE },
		{ "zero base mass", base_mass_zero, SN_ERR_NON_POSITIVE_MASS },
		{ "inertia not PD", inertia_negative, SN_ERR_INERTIA_NOT_PD },
		{ "inertia not symmetric", inertia_asymmetric, SN_ERR_INERTIA_NOT_PD },
		{ "inertia NaN", inertia_nan, SN_ERR_NOT_FINITE },
		{ "centre of mass inf", com_inf, SN_ERR_NOT_FINITE },
		{ "parent frame zero quaternion", parent_frame_zero_quat, SN_ERR_ZERO_AXIS },
		{ "child frame zero quaternion", child_frame_zero_quat, SN_ERR_ZERO_AXIS },
		{ "parent frame NaN", parent_frame_nan, SN_ERR_NOT_FINITE },
		{ "parent frame beyond SN_MAX_OFFSET", parent_frame_far, SN_ERR_INVALID_ARGUMENT },
		{ "child frame beyond SN_MAX_OFFSET", child_frame_far, SN_ERR_INVALID_ARGUMENT },
		{ "limits in the wrong order", limit_order, SN_ERR_LIMITS_ORDER },
		{ "limit NaN", limit_nan, SN_ERR_NOT_FINITE },
		{ "limit softness negative", limit_soft_negative, SN_ERR_NEGATIVE_VALUE },
		{ "limit softness kind", limit_soft_kind, SN_ERR_INVALID_ARGUMENT },
		{ "drive stiffness negative", drive_stiffness_negative, SN_ERR_NEGATIVE_VALUE },
		{ "drive damping NaN", drive_damping_nan, SN_ERR_NOT_FINITE },
		{ "drive max force negative", drive_max_force_negative, SN_ERR_NEGATIVE_VALUE },
		{ "drive max force NaN", drive_max_force_nan, SN_ERR_NOT_FINITE },
		{ "drive target inf", drive_target_inf, SN_ERR_NOT_FINITE },
		{ "drive type unknown", drive_type_unknown, SN_ERR_INVALID_ARGUMENT },
		{ "joint damping negative", damping_negative, SN_ERR_NEGATIVE_VALUE },
		{ "joint friction negative", friction_negative, SN_ERR_NEGATIVE_VALUE },
		{ "armature negative", armature_negative, SN_ERR_NEGATIVE_VALUE },
		{ "armature inf", armature_inf, SN_ERR_NOT_FINITE },
		{ "max joint velocity zero", max_velocity_zero, SN_ERR_INVALID_ARGUMENT },
		{ "max joint velocity NaN", max_velocity_nan, SN_ERR_NOT_FINITE },
		{ "initial position NaN", initial_position_nan, SN_ERR_NOT_FINITE },
		{ "initial velocity inf", initial_velocity_inf, SN_ERR_NOT_FINITE },
	};
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_id existing = make_arm(world);
	assert_sn_ok(sn_world_step(world));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c)
	{
		sn_articulation_def def = sn_default_articulation_def();
		sn_link_def links[3];
		valid_links(links);
		cases[c].spoil(&def, links);
		world_mark before = mark(world);
		sn_articulation_id id = { 77, 77 };
		sn_error err = sn_create_articulation(world, &def, links, 3, &id);
		if (err != cases[c].error)
		{
			fail_msg("%s: got %s, expected %s (%s)", cases[c].name, sn_error_name(err), sn_error_name(cases[c].error),
					 sn_world_last_error_detail(world));
		}
		assert_true(strlen(sn_world_last_error_detail(world)) > 0);
		assert_int_equal(id.index1, 77); // out_id untouched
		assert_unchanged(world, before, cases[c].name);
	}
	// Fields beyond a joint's dofs are ignored: a hinge with garbage in drive[2] is fine.
	sn_articulation_def def = sn_default_articulation_def();
	sn_link_def links[3];
	valid_links(links);
	links[1].drive[2].stiffness = -1.0;
	links[1].limit[1] = (sn_limit){ true, 1.0, -1.0, sn_soft_rigid() };
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &def, links, 3, &id));
	// Argument errors.
	world_mark before = mark(world);
	assert_sn_error(sn_create_articulation(NULL, &def, links, 3, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, NULL, links, 3, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, &def, NULL, 3, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, &def, links, 3, NULL), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, &def, links, 0, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, &def, links, -3, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_articulation(world, &def, links, SN_ARTICULATION_MAX_LINKS + 1, &id), SN_ERR_CAPACITY);
	assert_unchanged(world, before, "argument errors");
	assert_true(sn_articulation_is_valid(world, existing));
	sn_world_destroy(world);
}

static void test_row_capacity(void** state)
{
	(void)state;
	// More driven dofs than the dense response may hold: SN_ERR_CAPACITY, nothing created. A chain of the
	// same length without drives is fine, and enabling drives one by one fails at the limit with
	// nothing changed.
	const int n = SN_ARTICULATION_MAX_ROW_DOFS + 1;
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_link_def* links = calloc((size_t)n + 1, sizeof(sn_link_def));
	assert_non_null(links);
	links[0] = sn_default_link_def();
	for (int i = 1; i <= n; ++i)
	{
		links[i] = hinge_link(i - 1, sn_v3(0.1, 0, 0), 1.0, 0.05, sn_mat33_diag(1e-3, 1e-3, 1e-3));
		links[i].drive[0].enabled = true;
		links[i].drive[0].stiffness = 10.0;
	}
	sn_articulation_def def = sn_default_articulation_def();
	sn_articulation_id id;
	world_mark before = mark(world);
	assert_sn_error(sn_create_articulation(world, &def, links, n + 1, &id), SN_ERR_CAPACITY);
	assert_unchanged(world, before, "too many driven dofs");
	for (int i = 1; i <= n; ++i)
	{
		links[i].drive[0].enabled = i < n; // one drive short of the limit
	}
	assert_sn_ok(sn_create_articulation(world, &def, links, n + 1, &id));
	sn_drive drive = sn_default_drive();
	drive.enabled = true;
	before = mark(world);
	assert_sn_error(sn_articulation_set_drive(world, id, n - 1, &drive), SN_ERR_CAPACITY);
	assert_unchanged(world, before, "one drive too many");
	assert_false(sn_articulation_get_drive(world, id, n - 1).enabled);
	free(links);
	sn_world_destroy(world);
}

static void test_mimic_capacity(void** state)
{
	(void)state;
	// Each mimic joint is a row of the dense system the hold solves. Mimic joints were not bounded, so a
	// client could put thousands on two dofs and make every step cost their cube (and their square in
	// memory). At most SN_ARTICULATION_MAX_ROW_DOFS act on one articulation; one more is refused with
	// nothing changed, and destroying one makes room.
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_id arm = make_arm(world);
	sn_mimic_def def = sn_default_mimic_def();
	def.articulation = arm;
	def.dofs[0] = 1;
	def.dofs[1] = 3;
	sn_mimic_id first = { 0 }, id;
	for (int i = 0; i < SN_ARTICULATION_MAX_ROW_DOFS; ++i)
	{
		assert_sn_ok(sn_create_mimic_joint(world, &def, &id));
		first = i == 0 ? id : first;
	}
	world_mark before = mark(world);
	assert_sn_error(sn_create_mimic_joint(world, &def, &id), SN_ERR_CAPACITY);
	assert_unchanged(world, before, "one mimic joint too many");
	assert_int_equal(sn_world_get_mimic_joints(world, NULL, 0), SN_ARTICULATION_MAX_ROW_DOFS);
	assert_sn_ok(sn_destroy_mimic_joint(world, first));
	assert_sn_ok(sn_create_mimic_joint(world, &def, &id));
	sn_world_destroy(world);
}

static void test_bad_mimic_defs_rejected(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_id arm = make_arm(world);
	sn_mimic_def good = sn_default_mimic_def();
	good.articulation = arm;
	good.dofs[0] = 1;
	good.dofs[1] = 3;
	struct
	{
		const char* name;
		sn_mimic_def def;
		sn_error error;
	} cases[16];
	int n = 0;
#define CASE(label, err, ...)                                                                                          \
	do                                                                                                                 \
	{                                                                                                                  \
		cases[n].name = label;                                                                                         \
		cases[n].def = good;                                                                                           \
		sn_mimic_def* d = &cases[n].def;                                                                               \
		__VA_ARGS__;                                                                                                   \
		cases[n].error = err;                                                                                          \
		n += 1;                                                                                                        \
	} while (0)
	CASE("stale articulation", SN_ERR_INVALID_ID, d->articulation.generation += 1);
	CASE("null articulation", SN_ERR_INVALID_ID, d->articulation.index1 = 0);
	CASE("one dof", SN_ERR_INVALID_ARGUMENT, d->dof_count = 1);
	CASE("too many dofs", SN_ERR_INVALID_ARGUMENT, d->dof_count = SN_MIMIC_MAX_DOFS + 1);
	CASE("dof out of range", SN_ERR_TOPOLOGY, d->dofs[1] = ARM_LINKS);
	CASE("negative dof", SN_ERR_TOPOLOGY, d->dofs[0] = -1);
	CASE("same dof twice", SN_ERR_TOPOLOGY, d->dofs[1] = 1);
	CASE("gearing NaN", SN_ERR_NOT_FINITE, d->gearing[1] = NAN);
	CASE("offset inf", SN_ERR_NOT_FINITE, d->offset = INFINITY);
	CASE("erp above 1", SN_ERR_INVALID_ARGUMENT, d->erp = 1.5);
	CASE("erp NaN", SN_ERR_NOT_FINITE, d->erp = NAN);
	CASE("max force negative", SN_ERR_NEGATIVE_VALUE, d->max_force = -1.0);
	CASE("max force NaN", SN_ERR_NOT_FINITE, d->max_force = NAN);
	CASE("softness negative", SN_ERR_NEGATIVE_VALUE, d->soft = sn_soft_frequency(-1.0, 0.5));
	CASE("softness kind", SN_ERR_INVALID_ARGUMENT, d->soft.kind = (sn_soft_kind)9);
	CASE("N-dof repeat", SN_ERR_TOPOLOGY, (d->dof_count = 3, d->dofs[2] = 3));
#undef CASE
	for (int c = 0; c < n; ++c)
	{
		world_mark before = mark(world);
		sn_mimic_id id = { 55, 55 };
		sn_error err = sn_create_mimic_joint(world, &cases[c].def, &id);
		if (err != cases[c].error)
		{
			fail_msg("%s: got %s, expected %s", cases[c].name, sn_error_name(err), sn_error_name(cases[c].error));
		}
		assert_int_equal(id.index1, 55);
		assert_unchanged(world, before, cases[c].name);
	}
	world_mark before = mark(world);
	sn_mimic_id id;
	assert_sn_error(sn_create_mimic_joint(world, NULL, &id), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_create_mimic_joint(world, &good, NULL), SN_ERR_INVALID_ARGUMENT);
	assert_unchanged(world, before, "mimic argument errors");
	assert_sn_ok(sn_create_mimic_joint(world, &good, &id));
	assert_true(sn_mimic_joint_is_valid(world, id));
	sn_mimic_def back = sn_mimic_joint_get_def(world, id);
	assert_int_equal(back.dofs[1], 3);
	assert_true(back.gearing[0] == 1.0 && back.gearing[1] == good.gearing[1]);
	sn_world_destroy(world);
}

static void test_bad_setters_change_nothing(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_PGS, 0.001);
	sn_articulation_id arm = make_arm(world);
	for (int i = 0; i < 5; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	sn_articulation_id stale = { arm.index1, arm.generation + 1 };
	double q[ARM_LINKS] = { 0 };
	double bad_q[ARM_LINKS] = { 0, 0, NAN, 0, 0, 0, 0 };
	int dofs[3] = { 0, 4, 9 };
	double targets[3] = { 0.1, 0.2, 0.3 };
	sn_drive bad_drive = sn_default_drive();
	bad_drive.damping = -1.0;
	sn_limit bad_limit = { true, 1.0, 0.0, sn_soft_rigid() };
	world_mark before = mark(world);
	sn_drive drive3 = sn_articulation_get_drive(world, arm, 3);
	assert_sn_error(sn_articulation_set_joint_positions(world, arm, q, ARM_LINKS - 1), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_set_joint_positions(world, arm, bad_q, ARM_LINKS), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_articulation_set_joint_positions(world, stale, q, ARM_LINKS), SN_ERR_INVALID_ID);
	assert_sn_error(sn_articulation_set_joint_velocities(world, arm, bad_q, ARM_LINKS), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_articulation_set_joint_position(world, arm, ARM_LINKS, 0.0), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_set_joint_position(world, arm, 0, INFINITY), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_articulation_set_joint_velocity(world, arm, -1, 0.0), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_set_base_pose(world, arm, (sn_transform){ { 0, 0, 0 }, { 0, 0, 0, 0 } }),
					SN_ERR_ZERO_AXIS);
	assert_sn_error(sn_articulation_set_base_velocity(world, arm, sn_v3(1, 0, 0), sn_v3(0, 0, 0)), SN_ERR_WRONG_TYPE);
	assert_sn_error(sn_articulation_apply_link_force(world, arm, ARM_LINKS + 1, sn_v3(1, 0, 0), sn_v3(0, 0, 0)),
					SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_apply_link_force(world, arm, 1, sn_v3(NAN, 0, 0), sn_v3(0, 0, 0)),
					SN_ERR_NOT_FINITE);
	assert_sn_error(sn_articulation_apply_link_torque(world, arm, -1, sn_v3(1, 0, 0)), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_apply_joint_force(world, arm, 99, 1.0), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_apply_joint_force(world, arm, 0, NAN), SN_ERR_NOT_FINITE);
	assert_sn_error(sn_articulation_set_drive(world, arm, 3, &bad_drive), SN_ERR_NEGATIVE_VALUE);
	assert_sn_error(sn_articulation_set_drive(world, arm, 3, NULL), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_set_drive_target(world, arm, 3, NAN, 0.0), SN_ERR_NOT_FINITE);
	// One bad entry (dof 9) and nothing of the batch is applied.
	assert_sn_error(sn_articulation_set_drive_targets(world, arm, dofs, targets, NULL, 3), SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_articulation_set_limit(world, arm, 2, bad_limit), SN_ERR_LIMITS_ORDER);
	assert_sn_error(sn_articulation_set_limit(world, arm, 7, (sn_limit){ false, 0, 0, sn_soft_rigid() }),
					SN_ERR_INVALID_ARGUMENT);
	assert_sn_error(sn_destroy_articulation(world, stale), SN_ERR_INVALID_ID);
	double r;
	assert_sn_error(sn_articulation_compute_response(world, arm, 0, 7, &r), SN_ERR_INVALID_ARGUMENT);
	assert_unchanged(world, before, "bad setters");
	sn_drive after3 = sn_articulation_get_drive(world, arm, 3);
	assert_memory_equal(&drive3, &after3, sizeof(sn_drive));
	assert_true(sn_articulation_get_drive(world, arm, 0).target_position == arm_target);
	// The next step runs as if nothing had been tried (no stray applied forces).
	sn_world* twin = make_world(SN_SOLVER_PGS, 0.001);
	make_arm(twin);
	for (int i = 0; i < 6; ++i)
	{
		assert_sn_ok(sn_world_step(twin));
	}
	assert_sn_ok(sn_world_step(world));
	assert_true(sn_world_state_hash(world) == sn_world_state_hash(twin));
	sn_world_destroy(twin);
	sn_world_destroy(world);
}

// The check of a batch of drive targets: the set's verdict and detail line, and nothing changed.
static void test_check_drive_targets(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_PGS, 0.001);
	sn_articulation_id arm = make_arm(world);
	sn_drive before[ARM_LINKS], after[ARM_LINKS];
	for (int d = 0; d < ARM_LINKS; ++d)
	{
		before[d] = sn_articulation_get_drive(world, arm, d);
	}
	const int dofs[3] = { 1, 4, 1 };
	const double positions[3] = { 0.1, 0.2, 0.3 }, velocities[3] = { 1.0, 2.0, 3.0 };
	const int bad_dofs[3] = { 1, 4, ARM_LINKS };
	const double bad_velocities[3] = { 1.0, NAN, 3.0 };
	sn_articulation_id stale = { arm.index1, arm.generation + 1 };
	typedef struct batch
	{
		sn_articulation_id id;
		const int* dofs;
		const double* positions;
		const double* velocities;
		int count;
		sn_error expected;
	} batch;
	const batch batches[] = {
		{ arm, dofs, positions, velocities, 3, SN_ERR_OK },
		{ arm, dofs, positions, NULL, 3, SN_ERR_OK },
		{ arm, bad_dofs, positions, velocities, 3, SN_ERR_INVALID_ARGUMENT },
		{ arm, dofs, positions, bad_velocities, 3, SN_ERR_NOT_FINITE },
		{ stale, dofs, positions, velocities, 3, SN_ERR_INVALID_ID },
		{ arm, dofs, positions, velocities, -1, SN_ERR_INVALID_ARGUMENT },
		{ arm, NULL, positions, velocities, 3, SN_ERR_INVALID_ARGUMENT },
	};
	world_mark mark_before = mark(world);
	for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); ++k)
	{
		const batch* b = batches + k;
		assert_sn_error(
			sn_articulation_check_drive_targets(world, b->id, b->dofs, b->positions, b->velocities, b->count),
			b->expected);
		char detail[256];
		snprintf(detail, sizeof(detail), "%s", sn_world_last_error_detail(world));
		for (int d = 0; d < ARM_LINKS; ++d)
		{
			after[d] = sn_articulation_get_drive(world, arm, d);
		}
		assert_memory_equal(before, after, sizeof(before));
		assert_unchanged(world, mark_before, "check drive targets");
		if (b->expected != SN_ERR_OK)
		{
			assert_sn_error(
				sn_articulation_set_drive_targets(world, b->id, b->dofs, b->positions, b->velocities, b->count),
				b->expected);
			assert_string_equal(detail, sn_world_last_error_detail(world));
		}
	}
	// Applied, a later entry on the same dof wins.
	assert_sn_ok(sn_articulation_set_drive_targets(world, arm, dofs, positions, velocities, 3));
	assert_true(sn_articulation_get_drive(world, arm, 1).target_position == 0.3);
	assert_true(sn_articulation_get_drive(world, arm, 1).target_velocity == 3.0);
	assert_true(sn_articulation_get_drive(world, arm, 4).target_position == 0.2);
	sn_world_destroy(world);
}

static void test_ids_and_round_trips(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_def def = sn_default_articulation_def();
	def.user_data = 42;
	sn_link_def links[3];
	valid_links(links);
	links[2].user_data = 7;
	links[1].drive[0].enabled = true;
	links[1].drive[0].stiffness = 5.0;
	sn_articulation_id a;
	assert_sn_ok(sn_create_articulation(world, &def, links, 3, &a));
	assert_int_equal(sn_articulation_get_link_count(world, a), 3);
	assert_int_equal(sn_articulation_get_dof_count(world, a), 4);
	assert_int_equal(sn_articulation_get_link_dof_offset(world, a, 2), 1);
	assert_int_equal(sn_articulation_get_link_dof_count(world, a, 2), 3);
	assert_int_equal(sn_articulation_get_link_dof_count(world, a, 0), 0);
	assert_int_equal(sn_articulation_get_link_parent(world, a, 2), 1);
	assert_int_equal(sn_articulation_get_link_joint_type(world, a, 2), SN_LINK_JOINT_SPHERICAL);
	assert_true(sn_articulation_get_user_data(world, a) == 42);
	assert_true(sn_articulation_get_link_user_data(world, a, 2) == 7);
	assert_true(sn_articulation_is_fixed_base(world, a));
	sn_link_def back;
	assert_sn_ok(sn_articulation_get_link_def(world, a, 1, &back));
	assert_true(back.drive[0].enabled && back.drive[0].stiffness == 5.0);
	assert_true(back.mass == links[1].mass && back.center_of_mass.x == links[1].center_of_mass.x);
	// A stepped articulation rebuilt from its defs continues identically (the defs carry the state).
	for (int i = 0; i < 50; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	sn_link_def copy[3];
	for (int i = 0; i < 3; ++i)
	{
		assert_sn_ok(sn_articulation_get_link_def(world, a, i, copy + i));
	}
	sn_articulation_def copy_def = sn_articulation_get_def(world, a);
	sn_world* other = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_id b;
	assert_sn_ok(sn_create_articulation(other, &copy_def, copy, 3, &b));
	double qa[4], qb[4];
	assert_sn_ok(sn_articulation_get_joint_positions(world, a, qa, 4));
	assert_sn_ok(sn_articulation_get_joint_positions(other, b, qb, 4));
	for (int d = 0; d < 4; ++d)
	{
		// The ball joint's rotation vector goes through exp and log: rounding only.
		assert_near(qb[d], qa[d], 1e-15, "round trip through the defs");
	}
	sn_world_destroy(other);

	// Mimic joints die with their articulation; stale ids are rejected after the slot is reused.
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = a;
	md.dofs[0] = 0;
	md.dofs[1] = 2;
	sn_mimic_id m;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
	assert_int_equal(sn_world_get_mimic_joints(world, NULL, 0), 1);
	assert_sn_ok(sn_destroy_articulation(world, a));
	assert_false(sn_articulation_is_valid(world, a));
	assert_false(sn_mimic_joint_is_valid(world, m));
	assert_int_equal(sn_world_get_mimic_joints(world, NULL, 0), 0);
	assert_sn_error(sn_destroy_mimic_joint(world, m), SN_ERR_INVALID_ID);
	sn_articulation_id c;
	assert_sn_ok(sn_create_articulation(world, &def, links, 3, &c));
	assert_int_equal(c.index1, a.index1);             // the slot is reused...
	assert_false(sn_articulation_is_valid(world, a)); // ...under a new generation
	assert_int_equal(sn_articulation_get_link_count(world, a), 0);
	sn_articulation_id listed[4];
	assert_int_equal(sn_world_get_articulations(world, listed, 4), 1);
	assert_true(sn_articulation_id_equals(listed[0], c));
	sn_world_destroy(world);
}

// A scene with every kind of row: the arm (drives), a chain with limits and friction, a mimic pair.
static sn_world* busy_world(sn_allocator allocator, sn_solver solver)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.allocator = allocator;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	make_arm(world);
	sn_articulation_id chain = make_chain(world, 6);
	sn_limit limit = { true, -0.4, 0.4, sn_soft_rigid() };
	assert_sn_ok(sn_articulation_set_limit(world, chain, 1, limit));
	limit.soft = sn_soft_stiffness(500.0, 5.0);
	assert_sn_ok(sn_articulation_set_limit(world, chain, 3, limit));
	sn_mimic_def md = sn_default_mimic_def();
	md.articulation = chain;
	md.dofs[0] = 4;
	md.dofs[1] = 5;
	md.gearing[1] = -0.5;
	sn_mimic_id m;
	assert_sn_ok(sn_create_mimic_joint(world, &md, &m));
	return world;
}

static void test_determinism_and_no_allocation_in_step(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		counting_allocator counter = { 0, 0, 0 };
		sn_allocator hook = { counting_alloc, counting_free, &counter };
		sn_allocator none = { NULL, NULL, NULL };
		sn_world* world = busy_world(hook, solvers[s]);
		sn_world* twin = busy_world(none, solvers[s]);
		assert_sn_ok(sn_world_step(world));
		assert_sn_ok(sn_world_step(twin));
		uint64_t allocations = counter.allocations;
		for (int i = 0; i < 300; ++i)
		{
			// Targets from outside every step, as a server sends them.
			assert_sn_ok(sn_articulation_set_drive_target((sn_world*)world, (sn_articulation_id){ 1, 1 }, i % ARM_LINKS,
														  0.3 * sin(0.01 * i), 0.0));
			assert_sn_ok(sn_articulation_set_drive_target(twin, (sn_articulation_id){ 1, 1 }, i % ARM_LINKS,
														  0.3 * sin(0.01 * i), 0.0));
			assert_sn_ok(sn_world_step(world));
			assert_sn_ok(sn_world_step(twin));
			// Same inputs, same bits (the two worlds differ only in their allocator).
			if (sn_world_state_hash(world) != sn_world_state_hash(twin))
			{
				fail_msg("step %d: state hashes differ", i);
			}
		}
		assert_true(counter.allocations == allocations); // no allocation inside a step
		// The hash sees articulation state: a nudge changes it.
		uint64_t h = sn_world_state_hash(world);
		assert_sn_ok(sn_articulation_set_joint_velocity(world, (sn_articulation_id){ 2, 1 }, 0, 1e-9));
		assert_true(sn_world_state_hash(world) != h);
		sn_world_destroy(world);
		sn_world_destroy(twin);
		assert_true(counter.bytes == 0); // everything returned
	}
}

static void test_diverged_articulation_is_reported(void** state)
{
	(void)state;
	sn_world* world = make_world(SN_SOLVER_TGS, 0.001);
	sn_articulation_id p = make_pendulum(world, 1.0, 1.0);
	assert_sn_ok(sn_articulation_set_joint_velocity(world, p, 0, 1e7)); // beyond divergence_speed
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_true(sn_world_is_diverged(world));
	assert_sn_error(sn_world_step(world), SN_ERR_DIVERGED);
	assert_sn_ok(sn_articulation_set_joint_velocity(world, p, 0, 0.0));
	assert_sn_ok(sn_world_clear_divergence(world));
	assert_sn_ok(sn_world_step(world));
	sn_world_destroy(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_defs_rejected),
		cmocka_unit_test(test_row_capacity),
		cmocka_unit_test(test_mimic_capacity),
		cmocka_unit_test(test_bad_mimic_defs_rejected),
		cmocka_unit_test(test_bad_setters_change_nothing),
		cmocka_unit_test(test_check_drive_targets),
		cmocka_unit_test(test_ids_and_round_trips),
		cmocka_unit_test(test_determinism_and_no_allocation_in_step),
		cmocka_unit_test(test_diverged_articulation_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

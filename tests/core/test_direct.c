// The DIRECT solver (seed 004): the scenes of the first solver issue, exactness of equality rows in one
// step against PGS at the same time step, bounds, loops, the sparse LDL^T itself, topology changes, no
// allocation in steady steps, determinism.
//
// Tolerances. DIRECT solves each step's linear system exactly, so what is left is (a) round-off of the
// solve (1e-12 relative to the step's velocities), (b) the linearisation of a step: rows are built at the
// pose where the step starts and the motion within the step moves off them by (v h)^2 / (2 L), which the
// hard rows remove at erp per step (the same drift PGS has), and (c) the time integration itself
// (backward Euler on the constraint forces, beta = 1 positions from the end velocity).
#include "joint_scenes.h"
#include "support.h"

#include "alloc.h"
#include "solver/sparse_ldl.h"

#include <stdlib.h>
#include <string.h>

static const double g = 9.81;

// ---- the scenes of the first solver issue ------------------------------------------------------------

static void test_pendulum(void** state)
{
	(void)state;
	pendulum_run run = scene_pendulum(SN_SOLVER_DIRECT, 0.001, 10.0);
	double exact = scene_pendulum_exact_period();
	// The velocity rows are solved exactly at the start pose and the Baumgarte velocity that removes
	// the drift stays in the state, so little energy leaves (unlike PGS's split impulse): the phase
	// error is the integrator's O(h^2) one. Measured 4e-5 relative; bound 5e-4.
	assert_near(run.first_period, exact, 5e-4 * exact, "exact per-step projection, O(h^2) phase error");
	// Positions from the end velocity (beta = 1) make a symplectic Euler step: the energy oscillates by
	// O(h omega) of the swing's 9.81 J, 9.81 * 3.1 rad/s * 1 ms = 0.03 J, and does not drift.
	assert_below(-run.energy_min, 0.03, "symplectic Euler: energy oscillation O(h omega) E, no drift");
	assert_below(run.energy_max, 0.03, "symplectic Euler: energy oscillation O(h omega) E, no drift");
	// Drift (v h)^2 / 2L ~ 1e-5 m per step removed at erp 0.2: ~5e-5 m steady (as PGS).
	assert_below(run.max_arm_error, 1e-4, "position drift (v h)^2/2L at erp 0.2");
}

static void test_pendulum_agrees_with_tgs(void** state)
{
	(void)state;
	pendulum_run direct = scene_pendulum(SN_SOLVER_DIRECT, 0.001, 1.0);
	pendulum_run tgs = scene_pendulum(SN_SOLVER_TGS, 0.001, 1.0);
	// After 1 s each solver's dissipation has shifted the phase by at most ~1e-3 rad (TGS loses 0.01 J
	// per second of a 9.81 J swing); 5e-3 rad between them.
	assert_near(direct.angle_at_1s, tgs.angle_at_1s, 5e-3, "phase shifts of the two integrators");
}

static void test_chains_of_each_joint_type(void** state)
{
	(void)state;
	for (int type = 0; type < SN_JOINT_TYPE_COUNT; ++type)
	{
		chain_run run = scene_chain(SN_SOLVER_DIRECT, (sn_joint_type)type, 5, 0.001, 2.0);
		assert_false(run.diverged);
		if (type == SN_JOINT_FIXED || type == SN_JOINT_PRISMATIC || type == SN_JOINT_CYLINDRICAL)
		{
			// A cantilever that does not move: the exact solve holds it to round-off.
			assert_below(run.max_linear_error, 1e-12, "static cantilever: round-off of the exact solve");
			assert_below(run.max_angular_error, 1e-12, "static cantilever: round-off of the exact solve");
		}
		else if (type == SN_JOINT_SIX_AXIS)
		{
			// The 5 kg tip hits the RY limit at ~6 m/s: a step's drift (v h)^2 / 2L = 7e-5 m per joint,
			// summed along the chain and corrected at erp 0.2; measured 5e-4 m.
			assert_below(run.max_linear_error, 2e-3, "limit impact: per-step drift corrected at erp 0.2");
			assert_below(run.max_angular_error, 1e-3, "limit impact: per-step drift corrected at erp 0.2");
		}
		else
		{
			// Swinging chain, tip speed up to ~5 m/s: (v h)^2 / 2L / erp = 2.5e-4 m; measured 1e-4 m.
			assert_below(run.max_linear_error, 5e-4, "swing drift (v h)^2/2L removed at erp 0.2");
			assert_below(run.max_angular_error, 1e-3, "swing drift removed at erp 0.2");
		}
	}
}

static void test_limits_hold(void** state)
{
	(void)state;
	// Limits are solved exactly within the step (complementarity by the active set): a row that
	// reaches its limit stops there, so the hinge and prismatic limits hold to round-off.
	assert_below(scene_hinge_limit_excess(SN_SOLVER_DIRECT, 0.001, 2.0), 1e-9, "exact limit row");
	assert_below(scene_prismatic_limit_excess(SN_SOLVER_DIRECT, 0.001, 2.0), 1e-9, "exact limit row");
	assert_below(scene_twist_limit_excess(SN_SOLVER_DIRECT, 0.001, 2.0), 1e-9, "exact limit row");
	assert_below(scene_distance_limit_excess(SN_SOLVER_DIRECT, 0.001, 3.0), 1e-9, "exact limit row");
	// The cone row is the tangent plane of the cone at the start pose; within a step the boundary
	// curves away from it by ~ s (omega h)^2 / 2 and the swing direction turns: measured 4e-5; 2e-4.
	assert_below(scene_cone_limit_excess(SN_SOLVER_DIRECT, 0.5, 0.5, 0.001, 2.0), 2e-4, "cone curvature in a step");
	assert_below(scene_cone_limit_excess(SN_SOLVER_DIRECT, 0.3, 0.6, 0.001, 2.0), 2e-4, "cone curvature in a step");
}

static void test_motors(void** state)
{
	(void)state;
	// Strong motor: 10 rad/s on 0.1 kg*m^2 takes 1 N*m*s, 10 steps at its 100 N*m cap; then it holds.
	motor_run fast = scene_hinge_motor(SN_SOLVER_DIRECT, 10.0, 100.0, 0.001, 0.5);
	assert_near(fast.speed, 10.0, 1e-9, "an uncapped velocity row is exact");
	// Capped motor: the wheel accelerates at max_torque / I = 5 rad/s^2, 2.5 rad/s after 0.5 s, and the
	// motor reports exactly its cap.
	motor_run capped = scene_hinge_motor(SN_SOLVER_DIRECT, 10.0, 0.5, 0.001, 0.5);
	assert_near(capped.speed, 2.5, 1e-9, "constant torque at the cap: omega = tau t / I");
	assert_below(capped.max_torque, 0.5 * (1.0 + 1e-12), "the bound holds");
	assert_near(capped.max_torque, 0.5, 1e-9, "and is reached");
}

static void test_reactions_and_breaking(void** state)
{
	(void)state;
	for (int type = 0; type < SN_JOINT_TYPE_COUNT; ++type)
	{
		sn_vec3 f = scene_hanging_reaction(SN_SOLVER_DIRECT, (sn_joint_type)type, 10);
		// At rest the exact solve gives the weight to round-off.
		assert_near(f.z, 2.0 * g, 1e-9, "a body at rest: the joint carries its weight");
		assert_near(f.x, 0.0, 1e-9, "no side force at rest");
	}
	// Torque about B's anchor, as PGS/TGS report it: the joint balances gravity's torque about the anchor,
	// (0.5, 0, 0) x (0, 0, -9.81) = (0, 4.905, 0) N*m, with (0, -4.905, 0) on the bar.
	sn_vec3 force, torque;
	scene_cantilever_reaction(SN_SOLVER_DIRECT, 200, &force, &torque);
	assert_near(force.z, g, 1e-9 * g, "the exact solve at rest");
	assert_near(torque.y, -0.5 * g, 1e-9 * g, "the exact solve at rest");
	assert_near(torque.x, 0.0, 1e-9, "no torque about the bar's axis");
	assert_int_equal(scene_break_step(SN_SOLVER_DIRECT, 25.0, 500), -1);
	assert_int_equal(scene_break_step(SN_SOLVER_DIRECT, 18.0, 500), 0);
}

// ---- equality rows are exact in one step -------------------------------------------------------------

typedef struct chain_state
{
	sn_transform pose[16];
	sn_vec3 v[16], w[16];
} chain_state;

static void build_hinge_chain(sn_world* world, int n, sn_body_id* bodies, sn_joint_id* joints)
{
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	for (int i = 0; i < n; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_v3(0.25 + 0.5 * i, 0, 0);
		bd.inertia = sn_inertia_box(1.0, sn_v3(0.25, 0.05, 0.05));
		assert_sn_ok(sn_create_body(world, &bd, bodies + i));
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		if (i > 0)
		{
			hd.base.body_a = bodies[i - 1];
			hd.base.frame_a.p = sn_v3(0.25, 0, 0);
		}
		hd.base.body_b = bodies[i];
		hd.base.frame_b.p = sn_v3(-0.25, 0, 0);
		hd.base.frame_a.q = x_to_y;
		hd.base.frame_b.q = x_to_y;
		assert_sn_ok(sn_create_hinge_joint(world, &hd, joints + i));
	}
}

static void save(sn_world* world, int n, const sn_body_id* bodies, chain_state* s)
{
	for (int i = 0; i < n; ++i)
	{
		s->pose[i] = sn_body_get_pose(world, bodies[i]);
		s->v[i] = sn_body_get_linear_velocity(world, bodies[i]);
		s->w[i] = sn_body_get_angular_velocity(world, bodies[i]);
	}
}

// The largest |J v_{n+1} - t| over the hard rows of the chain, with J and C at the pose where the last
// step started (`before`) and t = -erp C / h; also the largest |J v_{n+1}| for scale. Puts the bodies
// back at the start pose with the end velocities to evaluate the rows through the public API.
static double equality_residual(sn_world* world, int n, const sn_body_id* bodies, const sn_joint_id* joints,
								const chain_state* before, double* scale)
{
	chain_state after;
	save(world, n, bodies, &after);
	for (int i = 0; i < n; ++i)
	{
		assert_sn_ok(sn_body_set_pose(world, bodies[i], before->pose[i]));
		assert_sn_ok(sn_body_set_linear_velocity(world, bodies[i], after.v[i]));
		assert_sn_ok(sn_body_set_angular_velocity(world, bodies[i], after.w[i]));
	}
	double erp = sn_world_get_erp(world), h = sn_world_get_time_step(world);
	const sn_axis locked[] = { SN_AXIS_X, SN_AXIS_Y, SN_AXIS_Z, SN_AXIS_RY, SN_AXIS_RZ };
	double worst = 0.0;
	*scale = 0.0;
	for (int i = 0; i < n; ++i)
	{
		for (int a = 0; a < 5; ++a)
		{
			double rate = sn_joint_get_coordinate_speed(world, joints[i], locked[a]);
			double c = sn_joint_get_coordinate(world, joints[i], locked[a]);
			worst = fmax(worst, fabs(rate + erp * c / h));
			*scale = fmax(*scale, fabs(sn_body_get_linear_velocity(world, bodies[i]).z));
		}
	}
	for (int i = 0; i < n; ++i)
	{
		assert_sn_ok(sn_body_set_pose(world, bodies[i], after.pose[i]));
	}
	return worst;
}

static double one_step_residual(sn_solver solver, int iterations, double warmup_s, double* scale)
{
	enum
	{
		N = 10
	};
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT; // the same motion before the measured step, whatever is measured
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[N];
	sn_joint_id joints[N];
	build_hinge_chain(world, N, bodies, joints);
	int warmup = (int)(warmup_s / wd.time_step + 0.5);
	for (int i = 0; i < warmup; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_sn_ok(sn_world_set_solver(world, solver));
	assert_sn_ok(sn_world_set_iterations(world, iterations, 1));
	chain_state before;
	save(world, N, bodies, &before);
	assert_sn_ok(sn_world_step(world));
	double r = equality_residual(world, N, bodies, joints, &before, scale);
	sn_world_destroy(world);
	return r;
}

static void test_equality_rows_exact_in_one_step(void** state)
{
	(void)state;
	double scale;
	// At rest (the chain released horizontally) and in full swing (after 0.3 s).
	for (int k = 0; k < 2; ++k)
	{
		double warmup = k == 0 ? 0.0 : 0.3;
		double direct = one_step_residual(SN_SOLVER_DIRECT, 1, warmup, &scale);
		// J v_{n+1} = -erp C / h for every hard row, to the round-off of a solve whose velocities are
		// ~scale: 1e-12 m/s (or rad/s) for velocities of 1e-2..3 m/s.
		assert_below(direct, 1e-12, "DIRECT solves the equality rows exactly");
		// PGS at the same step (8 sweeps by default) leaves an iteration residual many orders larger; the
		// comparison shows what the exact solve buys.
		double pgs = one_step_residual(SN_SOLVER_PGS, 8, warmup, &scale);
		assert_true(pgs > 1e3 * direct + 1e-10);
		print_message("equality residual after one step (%s): DIRECT %.3e, PGS(8) %.3e m/s (velocity scale %.3g)\n",
					  k == 0 ? "at rest" : "in swing", direct, pgs, scale);
	}
}

// PGS converges to DIRECT's velocities as its sweeps grow: the same equations, solved exactly once.
// Both start from the same swinging state (0.3 s of DIRECT) with erp = 0, so both solve J v_{n+1} = 0 at
// the start pose.
static void one_step_velocities(sn_solver solver, int sweeps, sn_vec3* v)
{
	enum
	{
		N = 6
	};
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	wd.erp = 0.0;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[N];
	sn_joint_id joints[N];
	build_hinge_chain(world, N, bodies, joints);
	for (int i = 0; i < 300; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_sn_ok(sn_world_set_solver(world, solver));
	assert_sn_ok(sn_world_set_iterations(world, sweeps, 0));
	assert_sn_ok(sn_world_step(world));
	for (int i = 0; i < N; ++i)
	{
		v[i] = sn_body_get_linear_velocity(world, bodies[i]);
	}
	sn_world_destroy(world);
}

static void test_pgs_converges_to_direct(void** state)
{
	(void)state;
	sn_vec3 direct[6], pgs[6];
	one_step_velocities(SN_SOLVER_DIRECT, 1, direct);
	double previous_gap = INFINITY;
	const int sweeps[] = { 3, 30, 300 };
	for (int k = 0; k < 3; ++k)
	{
		one_step_velocities(SN_SOLVER_PGS, sweeps[k], pgs);
		double gap = 0.0;
		for (int i = 0; i < 6; ++i)
		{
			gap = fmax(gap, sn_length(sn_sub(pgs[i], direct[i])));
		}
		print_message("PGS with %d sweeps: %.3e m/s from DIRECT's velocities\n", sweeps[k], gap);
		// Gauss-Seidel converges linearly, towards DIRECT's answer.
		assert_true(gap < previous_gap || gap < 1e-12);
		previous_gap = gap;
	}
	// 300 sweeps on a 6-link chain (warm-started from DIRECT's impulses) reach DIRECT's velocities to
	// 1e-9 m/s, velocities being ~3 m/s.
	assert_below(previous_gap, 1e-9, "PGS's limit is DIRECT's solution");
}

// ---- bounds ------------------------------------------------------------------------------------------

static void test_bounds_hold(void** state)
{
	(void)state;
	// A chain of 8 hinges, every one with a weak motor (cap 3 N*m, far below the load) and a limit of
	// +-0.6 rad: many bounded rows active at once, at both ends of their ranges.
	enum
	{
		N = 8
	};
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[N];
	sn_joint_id joints[N];
	build_hinge_chain(world, N, bodies, joints);
	for (int i = 0; i < N; ++i)
	{
		sn_motor motor = { true, i % 2 == 0 ? 4.0 : -4.0, 3.0 };
		sn_limit limit = { true, -0.6, 0.6, sn_soft_rigid() };
		assert_sn_ok(sn_joint_set_motor(world, joints[i], SN_AXIS_RX, motor));
		assert_sn_ok(sn_joint_set_limit(world, joints[i], SN_AXIS_RX, limit));
	}
	double worst_torque = 0.0, worst_excess = -INFINITY;
	for (int s = 0; s < 2000; ++s)
	{
		assert_sn_ok(sn_world_step(world));
		for (int i = 0; i < N; ++i)
		{
			double theta = sn_joint_get_coordinate(world, joints[i], SN_AXIS_RX);
			worst_excess = fmax(worst_excess, fmax(theta - 0.6, -0.6 - theta));
		}
	}
	sn_solver_stats stats = sn_world_get_solver_stats(world);
	assert_int_equal((int)stats.direct_unsettled_steps, 0);
	// A free hinge (no limit) with the same weak motor: the reported torque about the axis is the motor's.
	for (int i = 0; i < N; ++i)
	{
		sn_limit off = { false, 0.0, 0.0, sn_soft_rigid() };
		assert_sn_ok(sn_joint_set_limit(world, joints[i], SN_AXIS_RX, off));
	}
	for (int s = 0; s < 500; ++s)
	{
		assert_sn_ok(sn_world_step(world));
		for (int i = 0; i < N; ++i)
		{
			sn_vec3 torque;
			assert_sn_ok(sn_joint_get_reaction(world, joints[i], NULL, &torque));
			worst_torque = fmax(worst_torque, fabs(torque.y));
		}
	}
	// Bounds are exact: a clamped row's impulse is its bound, a free one is inside it.
	assert_below(worst_torque, 3.0 * (1.0 + 1e-12), "motor torque within its cap");
	assert_below(worst_excess, 1e-9, "limits hold: the active set solves the complementarity exactly");
	sn_world_destroy(world);
}

// ---- loops: a grid of bodies joined by hinges --------------------------------------------------------

static void test_grid_with_loops(void** state)
{
	(void)state;
	enum
	{
		SIDE = 6
	};
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id b[SIDE][SIDE];
	sn_joint_id joints[3 * SIDE * SIDE];
	int nj = 0;
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	const double s = 0.25;
	for (int i = 0; i < SIDE; ++i)
	{
		for (int k = 0; k < SIDE; ++k)
		{
			sn_body_def bd = sn_default_body_def();
			bd.pose.p = sn_v3(s * (i + 0.5), s * k, 0);
			bd.inertia = sn_inertia_box(1.0, sn_v3(0.5 * s, 0.5 * s, 0.02));
			assert_sn_ok(sn_create_body(world, &bd, &b[i][k]));
		}
	}
	for (int i = 0; i < SIDE; ++i)
	{
		for (int k = 0; k < SIDE; ++k)
		{
			// To the previous body along x (or the world) and along y, every hinge about y.
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.frame_a.q = x_to_y;
			hd.base.frame_b.q = x_to_y;
			hd.base.body_b = b[i][k];
			hd.base.frame_b.p = sn_v3(-0.5 * s, 0, 0);
			if (i > 0)
			{
				hd.base.body_a = b[i - 1][k];
				hd.base.frame_a.p = sn_v3(0.5 * s, 0, 0);
			}
			else
			{
				hd.base.frame_a.p = sn_v3(0, s * k, 0);
			}
			assert_sn_ok(sn_create_hinge_joint(world, &hd, joints + nj++));
			if (k > 0)
			{
				sn_hinge_joint_def side = sn_default_hinge_joint_def();
				side.base.frame_a.q = x_to_y;
				side.base.frame_b.q = x_to_y;
				side.base.body_a = b[i][k - 1];
				side.base.frame_a.p = sn_v3(0, 0.5 * s, 0);
				side.base.body_b = b[i][k];
				side.base.frame_b.p = sn_v3(0, -0.5 * s, 0);
				assert_sn_ok(sn_create_hinge_joint(world, &side, joints + nj++));
			}
		}
	}
	double worst = 0.0;
	for (int step = 0; step < 1000; ++step)
	{
		assert_sn_ok(sn_world_step(world));
		for (int j = 0; j < nj; ++j)
		{
			for (int a = 0; a < 3; ++a)
			{
				worst = fmax(worst, fabs(sn_joint_get_coordinate(world, joints[j], (sn_axis)a)));
			}
		}
	}
	sn_solver_stats st = sn_world_get_solver_stats(world);
	// The columns of the sheet (chains along x) are joined side by side by hinges on a common axis, so
	// the sheet moves as one chain of SIDE links: 6 * bodies - SIDE independent constraints out of
	// 5 * joints rows; the rest repeat others.
	int joints_count = SIDE + 2 * SIDE * (SIDE - 1);
	assert_int_equal(st.direct_dependent_rows, 5 * joints_count - (6 * SIDE * SIDE - SIDE));
	assert_true(st.direct_factor_blocks > st.direct_graph_edges); // loops fill in
	// The sheet swings down as one wide chain; anchors drift (v h)^2 / 2L per step, removed at erp.
	assert_below(worst, 5e-4, "swing drift removed at erp 0.2, as in the chains");
	assert_int_equal((int)st.direct_unsettled_steps, 0);
	sn_world_destroy(world);
}

// ---- the sparse LDL^T against a dense solve ----------------------------------------------------------

static double rand_unit(uint64_t* seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

// A = J J^T + shift I for "joints" (nodes) that each join two "bodies" (6 columns each, -1 for the
// world) with m random rows: the pattern of J M^-1 J^T. The last `dependent` rows repeat their joint's
// first rows. The factorisation must solve a consistent system to round-off.
static void check_sparse_ldl(int n, const int (*ends)[2], int bodies, int m, double shift, int dependent)
{
	enum
	{
		MAXN = 32
	};
	assert_true(n <= MAXN);
	// Adjacency: joints sharing a body.
	int ptr[MAXN + 1], adj[MAXN * MAXN], count = 0;
	for (int i = 0; i < n; ++i)
	{
		ptr[i] = count;
		for (int j = 0; j < n; ++j)
		{
			bool share = false;
			for (int a = 0; a < 2; ++a)
			{
				for (int b = 0; b < 2; ++b)
				{
					share = share || (ends[i][a] >= 0 && ends[i][a] == ends[j][b]);
				}
			}
			if (share && i != j)
			{
				adj[count++] = j;
			}
		}
	}
	ptr[n] = count;
	sn_memory memory;
	sn_allocator none = { NULL, NULL, NULL };
	memory_init(&memory, none);
	sparse_ldl s;
	memset(&s, 0, sizeof(s));
	int caps[MAXN], dims[MAXN];
	for (int i = 0; i < n; ++i)
	{
		caps[i] = m + 1;
		dims[i] = m;
	}
	assert_true(sparse_ldl_analyse(&s, &memory, n, ptr, adj, caps));
	int size = sparse_ldl_begin(&s, dims);
	assert_int_equal(size, n * m);
	int cols = 6 * bodies;
	double* jac = calloc((size_t)size * cols, sizeof(double));
	uint64_t seed = 12345;
	for (int i = 0; i < n; ++i)
	{
		for (int r = 0; r < m; ++r)
		{
			double* row = jac + (size_t)(i * m + r) * cols;
			for (int a = 0; a < 2; ++a)
			{
				for (int c = 0; ends[i][a] >= 0 && c < 6; ++c)
				{
					row[6 * ends[i][a] + c] = rand_unit(&seed);
				}
			}
		}
	}
	for (int d = 0; d < dependent; ++d)
	{
		int joint = n - 1 - d;
		double* dst = jac + (size_t)(joint * m + m - 1) * cols;
		memcpy(dst, jac + (size_t)(joint * m) * cols, (size_t)cols * sizeof(double));
	}
	double* a = calloc((size_t)size * size, sizeof(double));
	for (int r = 0; r < size; ++r)
	{
		for (int c = 0; c < size; ++c)
		{
			double v = r == c ? shift : 0.0;
			for (int k = 0; k < cols; ++k)
			{
				v += jac[(size_t)r * cols + k] * jac[(size_t)c * cols + k];
			}
			a[(size_t)r * size + c] = v;
		}
	}
	double blk[64];
	for (int i = 0; i < n; ++i)
	{
		for (int j = i; j < n; ++j)
		{
			bool adjacent = i == j;
			for (int e = ptr[i]; e < ptr[i + 1]; ++e)
			{
				adjacent = adjacent || adj[e] == j;
			}
			double mass = 0.0;
			for (int r = 0; r < m; ++r)
			{
				for (int c = 0; c < m; ++c)
				{
					blk[r * m + c] = a[(size_t)(i * m + r) * size + j * m + c];
					mass += fabs(blk[r * m + c]);
				}
			}
			if (adjacent)
			{
				sparse_ldl_add(&s, i, j, blk);
			}
			else
			{
				assert_true(mass == 0.0); // joints without a shared body do not couple
			}
		}
	}
	int dropped = sparse_ldl_factor(&s, 1e-9, NULL);
	assert_int_equal(dropped, shift > 0.0 ? 0 : dependent);
	// A consistent right-hand side b = A x0, solved: the residual is round-off.
	double* x0 = calloc((size_t)size, sizeof(double));
	double* b = calloc((size_t)size, sizeof(double));
	double* x = calloc((size_t)size, sizeof(double));
	for (int r = 0; r < size; ++r)
	{
		x0[r] = rand_unit(&seed);
	}
	double bmax = 0.0;
	for (int r = 0; r < size; ++r)
	{
		for (int c = 0; c < size; ++c)
		{
			b[r] += a[(size_t)r * size + c] * x0[c];
		}
		bmax = fmax(bmax, fabs(b[r]));
		x[r] = b[r];
	}
	sparse_ldl_solve(&s, x);
	double res = 0.0;
	for (int r = 0; r < size; ++r)
	{
		double v = -b[r];
		for (int c = 0; c < size; ++c)
		{
			v += a[(size_t)r * size + c] * x[c];
		}
		res = fmax(res, fabs(v));
	}
	// Backward stable elimination of a well-conditioned system: residual ~1e-15 relative to b.
	assert_below(res, 1e-12 * bmax, "LDL^T residual at round-off");
	sparse_ldl_release(&s, &memory);
	assert_true(memory.stats.bytes_in_use == 0);
	free(jac);
	free(a);
	free(x0);
	free(b);
	free(x);
}

// Joint graphs: a chain (a path), a star (every joint at one hub body: a tree whose joints form a
// clique), a ring of bodies (one loop) and a 4x4 grid of bodies (loops that fill in).
static void test_sparse_ldl_against_dense(void** state)
{
	(void)state;
	int ends[32][2];
	for (int shape = 0; shape < 4; ++shape)
	{
		int n = 0, bodies = 0;
		if (shape == 0 || shape == 1 || shape == 2)
		{
			bodies = 10;
			for (int i = 0; i < 10; ++i)
			{
				ends[n][0] = shape == 0 ? i - 1 : (shape == 1 ? (i == 0 ? -1 : 0) : i);
				ends[n][1] = shape == 2 ? (i + 1) % 10 : i;
				n += 1;
			}
		}
		else
		{
			bodies = 16;
			for (int r = 0; r < 4; ++r)
			{
				for (int c = 0; c < 4; ++c)
				{
					if (c > 0)
					{
						ends[n][0] = 4 * r + c - 1;
						ends[n++][1] = 4 * r + c;
					}
					if (r > 0)
					{
						ends[n][0] = 4 * (r - 1) + c;
						ends[n++][1] = 4 * r + c;
					}
				}
			}
		}
		check_sparse_ldl(n, (const int(*)[2])ends, bodies, 3, 0.5, 0);
		check_sparse_ldl(n, (const int(*)[2])ends, bodies, 3, 0.0, 0);
		check_sparse_ldl(n, (const int(*)[2])ends, bodies, 3, 0.0, 2);
	}
}

// A chain's graph is a path: minimum degree eliminates it from an end with no fill (Baraff's linear time).
static void test_chain_factorises_without_fill(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[16];
	sn_joint_id joints[16];
	build_hinge_chain(world, 16, bodies, joints);
	assert_sn_ok(sn_world_step(world));
	sn_solver_stats st = sn_world_get_solver_stats(world);
	assert_int_equal(st.direct_graph_edges, 15);
	assert_int_equal(st.direct_factor_blocks, 15);
	assert_int_equal(st.direct_dependent_rows, 0);
	assert_int_equal(st.direct_rounds, 1);
	sn_world_destroy(world);
}

// ---- topology changes, allocation, determinism -------------------------------------------------------

static void test_topology_changes_and_allocation(void** state)
{
	(void)state;
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[12];
	sn_joint_id joints[12];
	build_hinge_chain(world, 12, bodies, joints);
	assert_sn_ok(sn_world_step(world));
	uint64_t allocations = sn_world_get_memory_stats(world).allocations;
	for (int i = 0; i < 100; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_true(sn_world_get_memory_stats(world).allocations == allocations);
	// Cut the chain in the middle, then join its end back to the world: the graph changes twice and the
	// factorisation is analysed again; the constraint still holds afterwards.
	assert_sn_ok(sn_joint_set_enabled(world, joints[6], false));
	for (int i = 0; i < 50; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_int_equal(sn_world_get_solver_stats(world).direct_graph_edges, 9); // 11 edges less joint 6's two
	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base.body_b = bodies[11];
	hd.base.frame_a.p = sn_transform_point(sn_body_get_pose(world, bodies[11]), sn_v3(0.25, 0, 0));
	hd.base.frame_b.p = sn_v3(0.25, 0, 0);
	sn_joint_id extra;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &extra));
	assert_sn_ok(sn_destroy_joint(world, joints[3]));
	for (int i = 0; i < 200; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	for (int i = 0; i < 12; ++i)
	{
		if (i != 3 && i != 6)
		{
			assert_below(fabs(sn_joint_get_coordinate(world, joints[i], SN_AXIS_Y)), 1e-3, "still joined");
		}
	}
	// Steady again: no more allocation, even when the graph changes to one no larger than before (a
	// joint off and on again: two new analyses in capacity already there).
	allocations = sn_world_get_memory_stats(world).allocations;
	assert_sn_ok(sn_joint_set_enabled(world, joints[8], false));
	assert_sn_ok(sn_world_step(world));
	assert_sn_ok(sn_joint_set_enabled(world, joints[8], true));
	assert_sn_ok(sn_world_step(world));
	assert_true(sn_world_get_memory_stats(world).allocations == allocations);
	for (int i = 0; i < 100; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	assert_true(sn_world_get_memory_stats(world).allocations == allocations);
	sn_world_destroy(world);
}

static uint64_t run_hash(void)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = SN_SOLVER_DIRECT;
	sn_world* world;
	assert_sn_ok(sn_world_create(&wd, &world));
	sn_body_id bodies[8];
	sn_joint_id joints[8];
	build_hinge_chain(world, 8, bodies, joints);
	sn_motor motor = { true, 3.0, 2.0 };
	assert_sn_ok(sn_joint_set_motor(world, joints[2], SN_AXIS_RX, motor));
	for (int i = 0; i < 300; ++i)
	{
		assert_sn_ok(sn_world_step(world));
	}
	uint64_t h = sn_world_state_hash(world);
	sn_world_destroy(world);
	return h;
}

static void test_deterministic(void** state)
{
	(void)state;
	assert_true(run_hash() == run_hash());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_ldl_against_dense),
		cmocka_unit_test(test_chain_factorises_without_fill),
		cmocka_unit_test(test_equality_rows_exact_in_one_step),
		cmocka_unit_test(test_pgs_converges_to_direct),
		cmocka_unit_test(test_pendulum),
		cmocka_unit_test(test_pendulum_agrees_with_tgs),
		cmocka_unit_test(test_chains_of_each_joint_type),
		cmocka_unit_test(test_limits_hold),
		cmocka_unit_test(test_motors),
		cmocka_unit_test(test_reactions_and_breaking),
		cmocka_unit_test(test_bounds_hold),
		cmocka_unit_test(test_grid_with_loops),
		cmocka_unit_test(test_topology_changes_and_allocation),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

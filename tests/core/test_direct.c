// The DIRECT solver (Faure's compliant formulation, as in the SOFA compliant plugin; Baraff 1996 for the
// linear-time factorisation of a tree): exactness of equality rows in one step against PGS at the same
// time step, PGS converging to it, bounds, loops, the sparse LDL^T itself, topology changes, no
// allocation in steady steps, determinism. The scenes every solver runs (pendulum, chains of each joint
// type, limits, motors, reactions, breaking, free fall, the gyroscopic spin) are cells of the
// conformance matrix (test_conformance.c).
//
// Tolerances. DIRECT solves each step's linear system exactly, so what is left is (a) round-off of the
// solve (1e-12 relative to the step's velocities), (b) the linearisation of a step: rows are built at the
// pose where the step starts and the motion within the step moves off them by (v h)^2 / (2 L), which the
// hard rows remove at erp per step (the same drift PGS has), and (c) the time integration itself
// (backward Euler on the constraint forces, beta = 1 positions from the end velocity).
#include "core_support.h"

#include "alloc.h"
#include "solver/sparse_ldl.h"

#include <stdlib.h>
#include <string.h>

// ---- equality rows are exact in one step -------------------------------------------------------------

typedef struct chain_state
{
	sn_transform pose[16];
	sn_vec3 v[16], w[16];
} chain_state;

// The benchmarks' hanging chain of n hinged boxes (scene_hinge_chain).
static void build_hinge_chain(sn_world* world, int n, sn_body_id* bodies, sn_joint_id* joints)
{
	assert_sn_ok(scene_hinge_chain(world, n, bodies, joints));
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
	sn_body_id b[SIDE * SIDE];
	sn_joint_id joints[3 * SIDE * SIDE];
	int nj = scene_sheet_joint_count(SIDE, SIDE);
	// The benchmarks' sheet (scene_sheet): each plate hinged about y to the one before it along x (or the
	// world) and along y.
	assert_sn_ok(scene_sheet(world, SIDE, SIDE, b, joints));
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
		cmocka_unit_test(test_bounds_hold),
		cmocka_unit_test(test_grid_with_loops),
		cmocka_unit_test(test_topology_changes_and_allocation),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// The response matrix W of an articulation solve (artic/response.c) against the full impulse pass, on
// random trees. W is built two columns at a time, half of it by symmetry, with passes that skip the links
// no column needs (the subtrees a fixed base cuts off, the links below the last active dof); the public
// sn_articulation_compute_response runs the whole recursion of artic/dynamics.c for one unit impulse and
// reads one speed. Both are M^-1 at the same state, so they must agree to rounding on any tree: parents in
// any order (subtrees interleave), revolute, prismatic, spherical and fixed joints, fixed and floating
// bases, drives, friction, limits and mimic joints making any subset of the dofs active, and on floating
// bases a contact on one link (its path's dofs active, and the base's six slots, whose rows are checked
// against the whole recursion's base response). Then the TGS hold's structured route against the
// factorisation, and the drive path against the general rows, on random trees under PD control (with the
// composite rigid inertias its inverse is formed from checked against the articulated form); and a world
// restored from a snapshot continuing bit for bit.
#include "artic_support.h"

#include "artic/artic.h"
#include "world.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static double uniform(void)
{
	// 64-bit LCG (Knuth's MMIX constants), top 53 bits.
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static int below(int n)
{
	int i = (int)(uniform() * n);
	return i < n ? i : n - 1;
}

// A random tree of n links (n - 1 joints), each joint a random type about a random axis, and up to two
// mimic joints (follower first; one the world refuses is left out). Rows: random drives, limits within
// reach of the start and friction; or, when driven, a PD drive on every dof but the mimic followers, with
// a limit within reach on some (drives_only: no mimic joints or limits). The same seed gives the same tree.
enum
{
	RANDOM_TREE_MAX_LINKS = 20
};

static sn_articulation_id random_tree(sn_world* world, int n, bool floating, bool driven, bool drives_only, double gear)
{
	sn_link_def links[RANDOM_TREE_MAX_LINKS];
	links[0] = sn_default_link_def();
	links[0].mass = 0.5 + uniform();
	int dofs = 0, first_dof[RANDOM_TREE_MAX_LINKS] = { 0 }, dof_count[RANDOM_TREE_MAX_LINKS] = { 0 };
	for (int i = 1; i < n; ++i)
	{
		const double mass = 0.1 + 2.0 * uniform(), arm = 0.05 + 0.4 * uniform();
		const sn_mat33 inertia =
			sn_mat33_diag(0.005 + 0.02 * uniform(), 0.005 + 0.02 * uniform(), 0.005 + 0.02 * uniform());
		const int parent = below(i);
		links[i] =
			hinge_link(parent, sn_v3(0.3 * uniform(), 0.3 * uniform() - 0.15, 0.2 * uniform()), mass, arm, inertia);
		// A joint axis in a random direction.
		const sn_quat q = sn_quat_normalize(
			sn_quat_from_axis_angle(sn_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5 + 1e-3), 3.0 * uniform()));
		links[i].parent_frame.q = q;
		links[i].child_frame.q = q;
		const double kind = uniform();
		links[i].joint_type = kind < 0.5 ? SN_LINK_JOINT_REVOLUTE
			: kind < 0.7                 ? SN_LINK_JOINT_PRISMATIC
			: kind < 0.85                ? SN_LINK_JOINT_SPHERICAL
										 : SN_LINK_JOINT_FIXED;
		dof_count[i] = links[i].joint_type == SN_LINK_JOINT_SPHERICAL ? 3
			: links[i].joint_type == SN_LINK_JOINT_FIXED              ? 0
																	  : 1;
		first_dof[i] = dofs;
		dofs += dof_count[i];
		links[i].armature = uniform() < 0.3 ? 0.01 * uniform() : 0.0;
		links[i].joint_damping = uniform() < 0.3 ? 0.5 * uniform() : 0.0;
	}
	// Mimic joints: a follower and one or two leaders, distinct dofs, none in two mimic joints.
	int follower[2] = { -1, -1 }, leader[2] = { -1, -1 }, leader2[2] = { -1, -1 };
	bool used[3 * RANDOM_TREE_MAX_LINKS] = { false };
	for (int m = 0; m < 2 && dofs >= 2 && !drives_only; ++m)
	{
		const int f = below(dofs), l = below(dofs), l2 = below(dofs);
		if (f != l && !used[f] && !used[l] && uniform() < 0.7)
		{
			follower[m] = f;
			leader[m] = l;
			used[f] = used[l] = true;
			if (l2 != f && l2 != l && !used[l2] && uniform() < 0.3)
			{
				leader2[m] = l2;
				used[l2] = true;
			}
		}
	}
	for (int i = 1; i < n; ++i)
	{
		for (int d = 0; d < dof_count[i]; ++d)
		{
			const int dof = first_dof[i] + d;
			const bool follows = dof == follower[0] || dof == follower[1];
			links[i].initial_position[d] = 0.3 * (uniform() - 0.5);
			links[i].initial_velocity[d] = 2.0 * (uniform() - 0.5);
			const double pick = uniform();
			const double x = links[i].initial_position[d];
			const sn_limit near = { .enabled = true, .lower = x - 0.001, .upper = x + 0.001 }; // within reach
			// Driven: some joints are left to a limit alone (a held limit is then its slot's only row), and
			// some followers have one.
			const bool drive = driven ? !follows && pick >= 0.15 : pick < 0.35;
			if (driven && !drive && !drives_only && (!follows || pick < 0.5))
			{
				links[i].limit[d] = near; // a follower's limit lies in the span of its mimic row and leaders'
			}
			else if (drive)
			{
				links[i].drive[d] = sn_default_drive();
				links[i].drive[d].enabled = true;
				links[i].drive[d].stiffness = 100.0 * uniform();
				links[i].drive[d].damping = 0.1 + 2.0 * uniform();
				if (driven && !drives_only && pick < 0.35)
				{
					links[i].limit[d] = near;
				}
			}
			else if (!driven && pick < 0.6)
			{
				links[i].limit[d] = near;
			}
		}
		if (!driven && dof_count[i] > 0 && uniform() < 0.15)
		{
			links[i].joint_friction = 0.5 * uniform();
		}
	}
	sn_articulation_def ad = sn_default_articulation_def();
	ad.fixed_base = !floating;
	if (floating)
	{
		ad.base_angular_velocity = sn_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5);
		ad.base_linear_velocity = sn_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5);
	}
	sn_articulation_id id;
	assert_sn_ok(sn_create_articulation(world, &ad, links, n, &id));
	for (int m = 0; m < 2; ++m)
	{
		if (follower[m] < 0)
		{
			continue;
		}
		sn_mimic_def md = sn_default_mimic_def();
		md.articulation = id;
		md.dof_count = leader2[m] >= 0 ? 3 : 2;
		md.dofs[0] = follower[m];
		md.dofs[1] = leader[m];
		md.dofs[2] = leader2[m];
		md.gearing[1] = gear * 2.0 * (uniform() - 0.5);
		md.gearing[2] = gear * 2.0 * (uniform() - 0.5);
		md.offset = 0.0;
		sn_mimic_id mid;
		(void)sn_create_mimic_joint(world, &md, &mid);
	}
	return id;
}

static void test_response_matches_impulse_pass(void** state)
{
	(void)state;
	int trees = 0, interleaved = 0, entries = 0, based = 0;
	double worst = 0.0;
	for (int seed = 1; seed <= 300; ++seed)
	{
		rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL;
		const bool floating = (seed % 3) == 0;
		const int n = 3 + below(10);
		const double dt = 0.002;
		sn_world* world = make_world(SN_SOLVER_PGS, dt);
		const sn_articulation_id id = random_tree(world, n, floating, false, false, 1.0);
		// On a floating tree, a contact on one link (marked by hand below; the shape alone touches nothing)
		// makes every dof on its path to the root active and adds the base's six slots.
		const int touching = floating ? 1 + below(n - 1) : 0;
		if (floating)
		{
			sn_shape_def sd = sn_default_shape_def();
			sd.body = sn_articulation_get_link_body(world, id, touching);
			sn_shape_id link_shape;
			assert_sn_ok(sn_create_shape(world, &sd, &link_shape));
		}
		for (int step = 0; step < 3; ++step)
		{
			assert_sn_ok(sn_world_step(world));
		}
		// The solve of the next step, begun by hand: its rows and W at this state (PGS: W is always built).
		artic* a = artic_get(world, id);
		if (floating)
		{
			artic_mark_contact_link(a, touching);
		}
		assert_true(world_bind_scratch(world, NULL)); // the temporaries, as a step binds them
		artic_solve_begin(world, dt, false, 1);
		const int kd = a->rows.kd, k = a->rows.k;
		assert_int_equal(k, floating ? kd + 6 : kd); // the base's slots with a contact on a floating base
		if (k == 0)
		{
			sn_world_destroy(world);
			continue;
		}
		trees += 1;
		based += k > kd ? 1 : 0;
		interleaved += a->rows.interleaved ? 1 : 0;
		double scale = 0.0, diff = 0.0;
		// Copy W first: the public call below runs the free motion again over the work arrays.
		double w[42 * 42];
		int act[42];
		for (int s = 0; s < k; ++s)
		{
			act[s] = s < kd ? a->rows.act_dof[s] : -1;
			for (int t = 0; t < k; ++t)
			{
				w[t * k + s] = a->rows.w[t * k + s];
				scale = fmax(scale, fabs(w[t * k + s]));
			}
		}
		for (int s = 0; s < kd; ++s)
		{
			for (int t = 0; t < kd; ++t)
			{
				double r = 0.0;
				assert_sn_ok(sn_articulation_compute_response(world, id, act[s], act[t], &r));
				// It unbinds the world's own scratch when done; bound again, the same memory holds its factors.
				assert_true(world_bind_scratch(world, NULL));
				diff = fmax(diff, fabs(w[t * k + s] - r));
				entries += 1;
			}
			if (k > kd)
			{
				// The base's response to dof s's unit impulse (w, then v about the world origin) by the whole
				// recursion (artic_impulse_response, after the call above has factored this state), against
				// W's base row and, by symmetry, its base column.
				for (int d = 0; d < a->dof_count; ++d)
				{
					a->dw[d].y[0] = 0.0;
					a->dw[d].y[1] = 0.0;
				}
				a->dw[act[s]].y[0] = 1.0;
				sv6 base[2];
				artic_impulse_response(a, base);
				const double b[6] = { base[0].w.x, base[0].w.y, base[0].w.z, base[0].v.x, base[0].v.y, base[0].v.z };
				for (int c = 0; c < 6; ++c)
				{
					diff = fmax(diff, fabs(w[(kd + c) * k + s] - b[c]));
					diff = fmax(diff, fabs(w[s * k + kd + c] - b[c]));
					entries += 2;
				}
			}
		}
		for (int c = kd; c < k; ++c)
		{
			// The base block, IA_0^-1: symmetric, with a positive diagonal.
			assert_true(w[c * k + c] > 0.0);
			for (int r = kd; r < k; ++r)
			{
				diff = fmax(diff, fabs(w[c * k + r] - w[r * k + c]));
			}
		}
		worst = fmax(worst, diff / scale);
		if (!(diff <= 1e-12 * scale))
		{
			print_message("seed %d: %d links, %d active dofs, %s base: W differs by %.3e of %.3e\n", seed, n, k,
						  floating ? "floating" : "fixed", diff, scale);
		}
		// The same recursion summed in another order (pairs of columns, mirrored halves): rounding, 1e-12
		// of the largest entry (measured: at most 1e-15 relative).
		assert_below(diff, 1e-12 * scale, "W is M^-1 over the active dofs");
		sn_world_destroy(world);
	}
	print_message("%d trees with rows (%d with interleaved fixed-base subtrees, %d with base slots), %d entries, "
				  "worst %.2e relative\n",
				  trees, interleaved, based, entries, worst);
	assert_true(trees > 200);
	assert_true(interleaved > 10);
	assert_true(based > 80);
}

// What a shortcut counts in the solver stats when it is taken.
static long count_structured_holds(sn_solver_stats st)
{
	return st.artic_structured_holds;
}

static long count_drive_path_windows(sn_solver_stats st)
{
	return st.artic_drive_path_windows;
}

static long count_drive_path_dense(sn_solver_stats st)
{
	return st.artic_drive_path_dense;
}

// 120 random trees under PD control (random_tree's driven mode), each stepped 100 times in TGS in two
// worlds: with an exact shortcut of artic/solve.c switched on and off. Their joint positions, and their
// speeds times the 0.002 s step, agree within 1e-9 (the drive tests' bound: gains up to 100 N*m/rad amplify
// rounding 1e2 at most). The shortcut must be taken on more than `some` trees, never with the switch off, and
// not on all trees. gear: the mimic gearing scale of every fourth tree.
static void compare_routes(bool* shortcut, long (*taken)(sn_solver_stats), bool drives_only, double gear,
						   const char* name, int some, int fewest_links, int most_links)
{
	int taken_trees = 0, trees = 0;
	double worst = 0.0, fastest = 0.0;
	for (int seed = 1; seed <= 120; ++seed)
	{
		const bool floating = (seed % 3) == 0;
		sn_world* w[2];
		sn_articulation_id id[2];
		int n = 0;
		for (int r = 0; r < 2; ++r)
		{
			rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL;
			n = fewest_links + below(most_links - fewest_links + 1);
			w[r] = make_world(SN_SOLVER_TGS, 0.002);
			id[r] = random_tree(w[r], n, floating, true, drives_only, (seed % 4) == 0 ? gear : 1.0);
		}
		const int dofs = sn_articulation_get_dof_count(w[0], id[0]);
		long on = 0, off = 0;
		double diff = 0.0;
		for (int step = 0; step < 100; ++step)
		{
			*shortcut = true;
			assert_sn_ok(sn_world_step(w[0]));
			on += taken(sn_world_get_solver_stats(w[0]));
			*shortcut = false;
			assert_sn_ok(sn_world_step(w[1]));
			off += taken(sn_world_get_solver_stats(w[1]));
			*shortcut = true;
			for (int d = 0; d < dofs; ++d)
			{
				diff = fmax(diff,
							fabs(sn_articulation_get_joint_position(w[0], id[0], d) -
								 sn_articulation_get_joint_position(w[1], id[1], d)));
				diff = fmax(diff,
							0.002 *
								fabs(sn_articulation_get_joint_velocity(w[0], id[0], d) -
									 sn_articulation_get_joint_velocity(w[1], id[1], d)));
				fastest = fmax(fastest, fabs(sn_articulation_get_joint_velocity(w[0], id[0], d)));
			}
		}
		assert_int_equal(off, 0);
		trees += 1;
		taken_trees += on > 0 ? 1 : 0;
		worst = fmax(worst, diff);
		if (!(diff <= 1e-9))
		{
			print_message("seed %d: %d links, %d dofs, %s base: with and without the %s, %.3e apart\n", seed, n, dofs,
						  floating ? "floating" : "fixed", name, diff);
		}
		assert_below(diff, 1e-9, "the shortcut agrees with the route it replaces");
		sn_world_destroy(w[0]);
		sn_world_destroy(w[1]);
	}
	print_message("%d random trees, %d took the %s; worst difference %.2e; fastest joint %.3g\n", trees, taken_trees,
				  name, worst, fastest);
	assert_true(taken_trees > some);
	assert_true(taken_trees < trees);
}

static void test_structured_hold_on_random_trees(void** state)
{
	(void)state;
	// A drive on most dofs but the mimic followers, limits within reach on some, some joints held by a
	// limit alone, followers with limits; mimic joints of two and three dofs, with gearings up to 20 on every
	// fourth tree. The hold's structured route (artic/solve.c, hold_structured) must take the trees whose
	// rows pivot one to one on the dofs and leave the others (spherical joints, a leader without a
	// bilateral row...) to the factorisation; either way the worlds agree.
	compare_routes(&artic_structured_hold, count_structured_holds, false, 20.0, "structured hold", 20, 3, 12);
}

static void test_drive_path_on_random_trees(void** state)
{
	(void)state;
	// A PD drive on every dof and nothing else: the drive path (one pass of M + A per window) against the
	// general rows (W and the drive block). Trees with a spherical joint are not for the path and take the
	// rows in both worlds.
	compare_routes(&artic_drive_path, count_drive_path_windows, true, 1.0, "drive path", 20, 3, 12);
}

static void test_drive_path_inverse_on_random_trees(void** state)
{
	(void)state;
	// The drive path's windows on a fixed base of at most 16 dofs multiply by the inverse of M + A (formed
	// from its L^T D L factor, artic/dynamics.c), against the articulated-body pass per window. Floating bases
	// and trees with a spherical joint take the pass in both worlds: of 120 trees of 3 to 20 links, 10 take
	// the inverse (the larger trees mostly have a spherical joint).
	compare_routes(&artic_drive_dense, count_drive_path_dense, true, 1.0, "inverse of M + A", 6, 3, 20);
	// Its bound: a driven chain of 16 dofs takes it, one of 17 the passes (the drive path either way), and
	// the 16-dof chain agrees with the passes as the random trees do.
	for (int dofs = 16; dofs <= 17; ++dofs)
	{
		sn_world* w = make_world(SN_SOLVER_TGS, 0.002);
		sn_world* passes = make_world(SN_SOLVER_TGS, 0.002);
		sn_link_def links[18];
		links[0] = sn_default_link_def();
		for (int i = 1; i <= dofs; ++i)
		{
			links[i] = hinge_link(i - 1, sn_v3(i == 1 ? 0.0 : 0.3, 0, 0), 1.0, 0.15, sn_mat33_diag(0.01, 0.01, 0.01));
			links[i].drive[0] = sn_default_drive();
			links[i].drive[0].enabled = true;
			links[i].drive[0].stiffness = 50.0;
			links[i].drive[0].damping = 1.0;
		}
		sn_articulation_def ad = sn_default_articulation_def();
		sn_articulation_id id, other;
		assert_sn_ok(sn_create_articulation(w, &ad, links, dofs + 1, &id));
		assert_sn_ok(sn_create_articulation(passes, &ad, links, dofs + 1, &other));
		for (int step = 0; step < 100; ++step)
		{
			assert_sn_ok(sn_world_step(w));
			const sn_solver_stats st = sn_world_get_solver_stats(w);
			assert_true(st.artic_drive_path_windows > 0);
			assert_int_equal(st.artic_drive_path_dense, dofs <= 16 ? 1 : 0);
			artic_drive_dense = false;
			assert_sn_ok(sn_world_step(passes));
			artic_drive_dense = true;
		}
		for (int d = 0; d < dofs; ++d)
		{
			assert_below(fabs(sn_articulation_get_joint_position(w, id, d) -
							  sn_articulation_get_joint_position(passes, other, d)),
						 1e-9, "the chain's inverse agrees with the passes");
		}
		sn_world_destroy(w);
		sn_world_destroy(passes);
	}
}

static void test_snapshot_continues_random_trees(void** state)
{
	(void)state;
	// A world restored from a snapshot continues bit for bit (world.h), whatever the tree takes: the drive
	// path, the structured hold, the general rows, lazy joint forces, limits met mid-run. Random trees in
	// PGS and TGS: 40 steps, a snapshot, then 60 more steps in the original and in the restored world, with
	// the state hashes compared at every step (reading a joint force in between, which settles the pending
	// ones in one world only at odd steps).
	int compared = 0;
	for (int seed = 1; seed <= 60; ++seed)
	{
		rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL;
		const bool floating = (seed % 3) == 0;
		const int n = 3 + below(10);
		sn_world* world = make_world((seed % 2) == 0 ? SN_SOLVER_TGS : SN_SOLVER_PGS, 0.002);
		const sn_articulation_id id = random_tree(world, n, floating, (seed % 4) < 2, (seed % 4) == 0, 1.0);
		for (int step = 0; step < 40; ++step)
		{
			assert_sn_ok(sn_world_step(world));
		}
		const size_t size = sn_world_snapshot_size(world);
		void* bytes = malloc(size);
		assert_non_null(bytes);
		size_t written = 0;
		assert_sn_ok(sn_world_snapshot_write(world, bytes, size, &written));
		sn_world* copy = NULL;
		assert_sn_ok(sn_world_create_from_snapshot(bytes, written, NULL, &copy));
		free(bytes);
		assert_true(sn_world_state_hash(world) == sn_world_state_hash(copy));
		for (int step = 0; step < 60; ++step)
		{
			assert_sn_ok(sn_world_step(world));
			assert_sn_ok(sn_world_step(copy));
			if (step % 2 == 1)
			{
				sn_vec3 force, torque;
				assert_sn_ok(sn_articulation_get_link_incoming_force(copy, id, n - 1, &force, &torque));
			}
			assert_true(sn_world_state_hash(world) == sn_world_state_hash(copy));
			compared += 1;
		}
		sn_world_destroy(world);
		sn_world_destroy(copy);
	}
	print_message("%d steps of restored random trees compared bit for bit\n", compared);
}

// The drive path's inverse forms M from composite rigid inertias in 10 numbers (rinertia, math/spatial.h);
// the passes use the 21-number articulated form. For random bodies and their composites the two give the
// same force for a random motion: they add the same products in other orders, so they differ by a few
// roundings of numbers below 100 (1e-12 is a hundred times that).
static void test_composite_rigid_inertia(void** state)
{
	(void)state;
	rng_state = 7;
	double worst = 0.0;
	for (int trial = 0; trial < 1000; ++trial)
	{
		rinertia rc = { 0 };
		ainertia ac;
		memset(&ac, 0, sizeof(ac));
		const int bodies = 1 + below(4);
		for (int b = 0; b < bodies; ++b)
		{
			const double mass = 0.1 + 9.9 * uniform();
			const sn_vec3 r = sn_v3(2.0 * uniform() - 1.0, 2.0 * uniform() - 1.0, 2.0 * uniform() - 1.0);
			const sym33 ic = { 0.1 + uniform(),          0.1 + uniform(),          0.1 + uniform(),
							   0.05 * (uniform() - 0.5), 0.05 * (uniform() - 0.5), 0.05 * (uniform() - 0.5) };
			rinertia rb;
			ainertia ab;
			rinertia_from_rigid(&rb, mass, r, &ic);
			ainertia_from_rigid(&ab, mass, r, &ic);
			rinertia_add_to(&rc, &rb);
			ainertia_add_to(&ac, &ab);
		}
		const sv6 m = sv6_make(sn_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5),
							   sn_v3(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5));
		const sv6 d = sv6_sub(rinertia_mul(&rc, m), ainertia_mul(&ac, m));
		const double apart[6] = { d.w.x, d.w.y, d.w.z, d.v.x, d.v.y, d.v.z };
		for (int c = 0; c < 6; ++c)
		{
			worst = fmax(worst, fabs(apart[c]));
		}
	}
	print_message("1000 composites of 1-4 rigid bodies: the 10-number and 21-number forms %.2e apart\n", worst);
	assert_below(worst, 1e-12, "a composite rigid inertia acts as its articulated form");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_composite_rigid_inertia),
		cmocka_unit_test(test_response_matches_impulse_pass),
		cmocka_unit_test(test_structured_hold_on_random_trees),
		cmocka_unit_test(test_drive_path_on_random_trees),
		cmocka_unit_test(test_drive_path_inverse_on_random_trees),
		cmocka_unit_test(test_snapshot_continues_random_trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// The rows of an articulation solve and the entry points the world's solvers call.
//
// Rows act on dofs only (a link never touches a maximal-coordinate body), so they live in joint space:
// k active dofs (those with a limit, a drive, friction or a mimic joint), their speeds v (k numbers) and
// the response matrix W = [r_ij] of artic/response.c. An impulse P on a row with Jacobian J (over the
// active dofs) changes the speeds by W J^T P; one-dof rows have J = +-e_i, a mimic row J = (1, G_1, ...).
// Only at the end of the solve is the whole articulation updated, by one O(n) impulse pass (none on the
// drive path of a fixed base, whose windows carry every dof's speed and displacement). A row that
// acts on a link (a contact) is a row with a general J over the active dofs: it needs J and W J^T, which
// is all that the hold, the sweeps and the split impulse below use.
//
// One solve of length h (a world substep) in n windows of length rho = h / n (PGS: n = 1):
//   1. ABA at the start state (artic_forward, with the velocity terms at the predicted midpoint speeds):
//      free accelerations qdd, the factors of M, and the free-motion kick
//      qd* = qd + h qdd applied at once. Applied whole it gives exactly semi-implicit Euler when no row
//      acts, which is symplectic; a kick spread over the windows with accelerations frozen at the start
//      would advance positions by h qd + h^2 (n+1)/(2n) qdd and gain energy at a rate (n-1)/(2n) h^2 w^2
//      per step for a mode of frequency w.
//   2. Rows are built at the start positions x_0, with K = J W J^T. A limit gets rows only on the sides
//      the step could reach (limit_sides); the active dofs are those with rows, and W is theirs.
//   3. TGS: the hold. PhysX's drive note ("Implicit Spring Joint Drives", TGS position iteration)
//      makes one step of n windows the same as n steps of tau/n: each window's drive impulse is the
//      implicit one of that window alone, from zero (its eq. 44). That is what the windows below do,
//      but the kick of step 1 arrives whole, before the first window, while n steps of tau/n would
//      receive it in n parts. A drive that carries a load then sees in its first window the whole
//      step's load as speed, and at a stiff gain answers it with a deflection n times its static one
//      (the positions reported at step ends stop being k x = F: 0.1 of it at kp = 1e6 N/m, 1/60 s, 32
//      windows). So the kick is split: the impulse P_hold that holds it on the rows' coordinates,
//        (J W J^T) P_hold = -J (qd* - qd)     (bilateral rows: drives, friction, mimic),
//      solved together with the limits as inelastic contacts (held at J v = -max(c_0, 0) / h when the
//      step's motion would carry them past that, P_hold >= 0: a limit that separates is never pushed),
//      is applied with the kick, and each window owns P_hold / n of it as impulse already applied. On
//      the rows' coordinates the speeds are then those of n steps of rho that receive the kick in n
//      equal parts (J v is the same in both pictures at the start of every window: the kick's part of
//      the later windows is held), while the coordinates no row constrains keep the whole kick. For
//      one drive and no load P_hold = 0, and one step of n windows is n steps of tau/n exactly; under
//      a load F the drive's fixed point is k x = F exactly, at every step length. P_hold is computed
//      from this step's kick, not from history, so it adds no explicit (delayed) force: each window
//      stays an implicit Euler step of its springs, stable at any gain. Rows whose Jacobians are
//      dependent (a drive and a friction row on one dof, a mimic over driven dofs) are dropped from the
//      system by the factorisation, and P_hold is clamped to each row's bounds over the step.
//      An impact (a limit whose speed before the kick already carries it past its floor) is not the
//      kick's: n steps of tau/n would stop it in the first, with the springs soft at that scale. When the
//      rows include springs, hold_impact stops it first, with the rigid mimic rows and without the
//      springs, and the hold then holds only the kick (a limit at its floor, or at its speed before the
//      kick if that could not be stopped). Held rigid in an impact, a drive took its impulse and handed
//      it back as speed window by window; through a mimic row of large gearing that fed the next step's
//      impact, and the world diverged.
//   4. Warm start (Catto's sequential impulses): rigid rows (limits, friction, rigid mimic rows) carry
//      the part of last step's force that the hold does not explain, F_warm = (P_total - P_hold) / h,
//      scaled by the world's warm_start, and each window applies its share F_warm rho at its start, as
//      the maximal-coordinate path does. Springs (drives, soft rows) start every window from zero (the
//      drive note's eq. 44): their update is exact for the window alone whatever was applied before
//      (artic/drive.c), so a warm start would change nothing but the order of a Gauss-Seidel sweep.
//      PGS: one window, every row warm-started with last step's whole force.
//   5. Windows. PGS: position_iterations sweeps, positions advanced once, then velocity_iterations
//      sweeps (drives and soft rows continue, the drive note's PGS velocity iteration). TGS: one sweep
//      per window with the position error C = C_0 + J dx from the accumulated displacement dx,
//      positions advanced by rho; then velocity_iterations sweeps in which drives and soft rows are
//      frozen (the drive note's TGS velocity iteration) and rigid rows continue.
//   6. End: with P the total row impulse and Y the sum over windows of rho (P + Q_window) (Q: pseudo
//      impulses, below), velocities are qd* + M^-1 P and positions advance by h qd* + M^-1 Y: exactly
//      the sum of rho (v + v_pseudo) over the windows.
//
// Position error of rigid rows: a split impulse (Catto; the maximal solvers do the same). The physical
// impulse solves J v = 0 (limit reached: J v >= 0) and is what is warm-started and reported; the error
// is removed by a second impulse Q on pseudo speeds v_p that move the positions in this window only and
// are then dropped, so a correction never becomes kinetic energy. Its target J v_p = -beta C removes the
// fraction erp of the error per step, as the Baumgarte term erp C / dt of PhysX's mimic note (eq. 5)
// does: with n windows each removing beta rho of what is left, (1 - beta rho)^n = 1 - erp, so
//   beta = (1 - (1 - erp)^(1/n)) / rho              (erp / h for one window)
// and the correction speed is bounded, |J v_p| <= max_correction_speed (sn_articulation_def), so that a
// joint that starts far outside a limit is brought back at a bounded pace. A row's pseudo impulse carries
// from one window to the next (one Gauss-Seidel pass per window from zero would leave coupled corrections
// undoing each other), and an error at rounding level (|C| <= 1e-12) is not corrected.
//
// Row solves (v_row = J v; c = c_0 + J dx in TGS, c_0 in PGS):
//   drive           artic/drive.c, |acc| <= max_force rho
//   friction        dP = -v_row / K, |acc| <= friction rho
//   limit, c > 0    dP = -(v_row + c / rho) / K (speculative: only stops the gap closing within the window)
//   limit, rigid    dP = -v_row / K;  position sweeps also dQ = -(J v_p - min(-beta c, v_max)) / K, Q >= 0
//   limit, soft     dP = -m_soft (v_row + bias_rate c) - impulse_scale acc       (constraint/soft.h)
//   mimic, rigid    PhysX's mimic note eq. (17) without the bias: dP = -J v / (J M^-1 J^T); position sweeps
//                   also dQ = -(J v_p + clamp(beta c, v_max)) / (J M^-1 J^T); |acc|, |Q| <= max_force rho
//   mimic, soft     the soft form with constraint/soft.h's coefficients (C enters as a spring, not as a bias)
// Unilateral rows keep acc >= 0 (lower: J = +1, C = x - lower; upper: J = -1, C = upper - x). Every dP is
// clamped through the window's accumulator acc, and only the clamped change is applied.
//
// Spherical dofs: a limit or drive on a rotation-vector component uses the speed along the same
// parent-side axis as its rate, exact for rotation about a fixed axis and first order otherwise.
#include "artic/artic.h"

#include "world.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

bool artic_structured_hold = true;
bool artic_drive_path = true;

static inline double clamp_accumulate(double* acc, double delta, double lo, double hi)
{
	double p = *acc + delta;
	p = p < lo ? lo : (p > hi ? hi : p);
	delta = p - *acc;
	*acc = p;
	return delta;
}

// A floating base's slots (w, v about O) from and into a spatial vector.
static void base_slots_set(const artic_rows* rs, sv6 v, double* x)
{
	double* b = x + rs->kd;
	b[0] = v.w.x, b[1] = v.w.y, b[2] = v.w.z;
	b[3] = v.v.x, b[4] = v.v.y, b[5] = v.v.z;
}

static sv6 base_slots_get(const artic_rows* rs, const double* x)
{
	const double* b = x + rs->kd;
	return sv6_make(sn_v3(b[0], b[1], b[2]), sn_v3(b[3], b[4], b[5]));
}

static inline bool unilateral(const artic_row* ar)
{
	return ar->kind == ARTIC_ROW_LOWER || ar->kind == ARTIC_ROW_UPPER;
}

// Bounds of a row's impulse over a time t (the window, or the whole solve for the hold).
static inline void row_bounds(const artic_row* ar, double t, double* lo, double* hi)
{
	if (unilateral(ar))
	{
		*lo = 0.0;
		*hi = INFINITY;
	}
	else
	{
		*lo = -ar->bound * t;
		*hi = ar->bound * t;
	}
}

// ---- a row's Jacobian over the active dofs ------------------------------------------------------------

// J x for a vector x over the active slots.
static inline double jacobian_dot(const sn_world* world, const artic* a, const artic_row* ar, const double* x)
{
	(void)world;
	(void)a;
	if (ar->kind == ARTIC_ROW_MIMIC)
	{
		double v = 0.0;
		for (int i = 0; i < ar->mcount; ++i)
		{
			v += ar->mgear[i] * x[ar->mslot[i]];
		}
		return v;
	}
	return ar->sign * x[ar->slot];
}

// speed += delta W J^T and impulse += delta J^T (real or pseudo).
static inline void jacobian_apply(const sn_world* world, artic* a, const artic_row* ar, double delta,
								  double* restrict speed, double* restrict impulse)
{
	(void)world;
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	if (ar->kind == ARTIC_ROW_MIMIC)
	{
		artic_axpy(speed, delta, ar->wj, ar->lo, ar->hi);
		for (int i = 0; i < ar->mcount; ++i)
		{
			impulse[ar->mslot[i]] += ar->mgear[i] * delta;
		}
		return;
	}
	const double signed_delta = ar->sign * delta;
	artic_axpy(speed, signed_delta, rs->w + ar->slot * k, ar->lo, ar->hi);
	impulse[ar->slot] += signed_delta;
}

// J_a W J_b^T.
static double jacobian_coupling(const sn_world* world, const artic* a, const artic_row* ra, const artic_row* rb)
{
	const artic_rows* rs = &a->rows;
	if (rb->kind == ARTIC_ROW_MIMIC)
	{
		return jacobian_dot(world, a, ra, rb->wj); // W J_b^T is stored
	}
	if (ra->kind == ARTIC_ROW_MIMIC)
	{
		return rb->sign * ra->wj[rb->slot];
	}
	return ra->sign * rb->sign * rs->w[rb->slot * rs->k + ra->slot];
}

// ---- building --------------------------------------------------------------------------------------------

double artic_bias_rate(double erp, int windows, double hw)
{
	if (!(erp > 0.0))
	{
		return 0.0;
	}
	if (windows == 1 || erp >= 1.0)
	{
		return (windows == 1 ? erp : 1.0) / hw;
	}
	// 1 - (1 - erp)^(1/n) without cancellation: -expm1(log1p(-erp) / n).
	return -expm1(log1p(-erp) / windows) / hw;
}

double artic_row_bias_rate(artic* a, double erp, int windows, double hw)
{
	if (!(a->rate_windows == windows && a->rate_erp == erp && a->rate_hw == hw))
	{
		a->rate = artic_bias_rate(erp, windows, hw);
		a->rate_erp = erp;
		a->rate_hw = hw;
		a->rate_windows = windows;
	}
	return a->rate;
}

// Zeroes a row up to its mimic arrays, which are read only below mcount: 16 bytes per store, where a memset
// of the whole 312 bytes compiles to a string instruction whose start-up cost was 4% of a driven step.
static inline void row_clear(artic_row* ar)
{
	_Static_assert(offsetof(artic_row, mcount) % 16 == 0 && offsetof(artic_row, mcount) <= 256,
				   "the cleared head of artic_row is whole 16-byte stores");
	const lane2 zero = lane2_splat(0.0);
	unsigned char* bytes = (unsigned char*)ar;
#pragma GCC unroll 16
	for (size_t at = 0; at < offsetof(artic_row, mcount); at += 16)
	{
		memcpy(bytes + at, &zero, sizeof(zero));
	}
	ar->mcount = 0;
}

static void add_row(artic_rows* rs, artic_row_kind kind, int slot, int dof, double sign, double bound, double c0)
{
	artic_row* ar = rs->rows + rs->count++;
	row_clear(ar);
	ar->kind = (uint8_t)kind;
	ar->slot = slot;
	ar->key = dof;
	ar->sign = sign;
	ar->k = rs->fast ? 0.0 : rs->w[slot * rs->k + slot]; // the drive path has no W (drive_path_leave)
	ar->inv_k = ar->k > 0.0 ? 1.0 / ar->k : 0.0;
	ar->lo = rs->span_lo[slot];
	ar->hi = rs->span_hi[slot];
	ar->bound = bound;
	ar->c0 = c0;
}

// Active dofs: those with a row. Mimic dofs were marked in dof_slot (0) by the caller.
// The sides of a dof's limit that this solve of length h may reach (bit 1 lower, bit 2 upper): a side
// whose gap the dof's free-motion speed would not close in half the step, even with 1 m/s or rad/s more
// from the other rows, gets no row (a speculative margin, as contact engines keep). The rows of a solve
// change a dof's speed by more only in violent transients; the limit is then crossed by at most h times
// the excess and corrected in the next steps like any error (split impulse, no energy). Free motion away
// from its limits then has no rows at all.
static uint8_t limit_sides(const artic* a, int d, double h)
{
	const sn_limit* lim = a->limits + d;
	if (!lim->enabled)
	{
		return 0;
	}
	const double q = a->q[d], v = a->qd_free[d];
	uint8_t sides = 0;
	if (q - lim->lower <= h * (2.0 * (v < 0.0 ? -v : 0.0) + 1.0))
	{
		sides |= 1;
	}
	if (lim->upper - q <= h * (2.0 * (v > 0.0 ? v : 0.0) + 1.0))
	{
		sides |= 2;
	}
	return sides;
}

static void choose_active(artic* a, double h, bool base_slots)
{
	artic_rows* rs = &a->rows;
	rs->k = 0;
	for (int d = 0; d < a->dof_count; ++d)
	{
		const artic_link* l = a->links + a->dof_link[d];
		a->limit_near[d] = a->limit_count > 0 ? limit_sides(a, d, h) : 0;
		bool active = a->dof_slot[d] >= 0 || a->limit_near[d] != 0 || a->drives[d].enabled || l->joint_friction > 0.0;
		a->dof_slot[d] = active ? rs->k : -1;
		if (active)
		{
			rs->act_dof[rs->k++] = d;
		}
	}
	rs->kd = rs->k;
	if (base_slots)
	{
		rs->k += ARTIC_BASE_SLOTS;
	}
}

// Each active slot's span: the slots of its subtree of a fixed base, when the slots of every subtree are
// contiguous (links in depth-first order, as the URDF importer makes them), else all slots.
static void choose_spans(artic* a)
{
	artic_rows* rs = &a->rows;
	const int k = rs->kd; // a fixed base has no base slots
	a->subtree[0] = 0;
	for (int i = 1; i < a->link_count; ++i)
	{
		int p = a->links[i].parent;
		a->subtree[i] = p == 0 ? i : a->subtree[p];
	}
	bool contiguous = a->fixed_base;
	int start = 0;
	for (int s = 1; s <= k && contiguous; ++s)
	{
		int32_t tree = a->subtree[a->dof_link[rs->act_dof[s - 1]]];
		if (s < k && a->subtree[a->dof_link[rs->act_dof[s]]] == tree)
		{
			continue;
		}
		// The run [start, s) of one subtree: no later slot may belong to it.
		for (int t = s; t < k && contiguous; ++t)
		{
			contiguous = a->subtree[a->dof_link[rs->act_dof[t]]] != tree;
		}
		for (int t = start; t < s; ++t)
		{
			rs->span_lo[t] = start;
			rs->span_hi[t] = s;
		}
		start = s;
	}
	// A fixed base whose subtrees' slots interleave: the spans cannot say where W is zero, the subtrees do.
	rs->interleaved = a->fixed_base && !contiguous;
	if (!contiguous)
	{
		for (int s = 0; s < rs->k; ++s)
		{
			rs->span_lo[s] = 0;
			rs->span_hi[s] = rs->k;
		}
	}
}

// ---- the drive path -----------------------------------------------------------------------------------------
//
// When every dof carries a drive and no other row (no limit within reach, no friction, mimic or contact),
// TGS solves the drive block of each window, (A^-1 + W) d = A^-1 (C - acc) - v (artic/drive.c), without
// W. Every dof is a slot, so W = J M^-1 J^T, with M the impulse passes' inertia over the dofs and, for a
// floating base, its six velocities too (J selects the dofs). With g = C - acc - A v (g_i = a_i times the
// block's right-hand side), let y solve (M + J^T A J) y = J^T g. Then M y = J^T (g - A J y), so
// d = g - A J y satisfies A^-1 d + J M^-1 J^T d = A^-1 g - J y + J y, the block's equation (Woodbury), and
// the velocities change by M^-1 J^T d = y. M + J^T A J is M with a_i added to joint i's D in the
// articulated-body induction (as armature is): its factor is one O(n) pass per solve (and a 6 x 6 LDL^T at
// a floating base), and each window one O(n) impulse pass, where the block needed W (k impulse passes),
// its Cholesky factor and an O(k^2) solve per window. The hold of the kick is (J M^-1 J^T) P = -J kick:
// the impulse on the dofs alone that undoes the kick's dof speeds, with the base (on which nothing acts)
// free. So P = J M delta, where delta has the dof part -kick and the base part that keeps the tree's
// momentum (artic_mass_times): one O(n) pass, after which every dof moves at its start speed qd. On a fixed
// base delta = -kick and P = -M kick = -h (tau - C), the free motion's own force (artic_free_impulse: one
// inward sum of its bias forces). A fixed base of at most ARTIC_DRIVE_DENSE_MAX_DOFS dofs forms
// (M + J^T A J)^-1 once per solve instead, and each window multiplies by it (artic/dynamics.c, the drive
// path's inverse): the impulse pass is a chain of dependent steps, the product independent sums. Each window applies its impulses and advances dx and y itself
// (drive_path_window), and on a fixed base the solve's end takes each dof's end speed v and displacement dx
// from the windows (end_one) instead of an impulse pass: every dof is a slot. The result
// is the block's up to rounding, with one difference: d = g - A y cancels where a drive's a is much larger
// than its joint's inertia, so the drive impulses carry a relative error of about eps a / M_ii (1e-9 at
// kp 1e12 N*m/rad on a 1 kg*m^2 joint at 1/60 s; the speed changes y do not cancel). A drive that would
// exceed max_force or push past max_velocity in a window, or a hold beyond max_force, sends the solve back
// to the general rows (drive_path_leave), which clamp; sn_solver_stats counts both.
static bool drive_path_applies(const artic* a, bool contacts)
{
	if (contacts || a->mimic_count > 0 || a->rows.k != a->dof_count || a->rows.k == 0)
	{
		return false;
	}
	for (int d = 0; d < a->dof_count; ++d)
	{
		const artic_link* l = a->links + a->dof_link[d];
		const sn_drive* dr = a->drives + d;
		if (l->dof_count != 1 || !dr->enabled || dr->type != SN_DRIVE_FORCE ||
			!(dr->stiffness > 0.0 || dr->damping > 0.0) || a->limit_near[d] != 0 || l->joint_friction > 0.0)
		{
			return false;
		}
	}
	return true;
}

// A drive's coefficients without its response: C = fast_c - fast_cpos dx - fast_ctp (time left).
static void drive_path_prepare(artic_rows* rs, int s, const sn_drive* drive, double x0, double hw)
{
	const double kp = drive->stiffness, kd = drive->damping;
	rs->fast_a[s] = hw * (hw * kp + kd);
	rs->fast_c[s] = hw * kd * drive->target_velocity + hw * kp * (drive->target_position - x0);
	rs->fast_cpos[s] = hw * kp;
	rs->fast_ctp[s] = hw * kp * drive->target_velocity;
	rs->fast_bound[s] = drive->max_force * hw;
	rs->fast_speed[s] = drive->max_velocity;
	rs->fast_share[s] = 0.0;
	rs->fast_total[s] = 0.0;
	rs->rows[rs->count - 1].drive_speed = drive->max_velocity;
}

// The rows' impulses over the solve, which the path keeps per slot, back into the rows.
static void drive_path_sync(artic_rows* rs)
{
	for (int i = 0; i < rs->count; ++i)
	{
		rs->rows[i].total = rs->fast_total[rs->rows[i].slot];
	}
}

// Back to the general rows for the rest of the solve: W, the rows' K, the drive coefficients, the block.
static void drive_path_leave(const sn_world* world, artic* a, double hw)
{
	artic_rows* rs = &a->rows;
	rs->fast = false;
	rs->fast_dense = false;
	world->artics->path_leaves += 1;
	drive_path_sync(rs);
	artic_compute_response(a);
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		ar->k = rs->w[ar->slot * rs->k + ar->slot];
		ar->inv_k = ar->k > 0.0 ? 1.0 / ar->k : 0.0;
		artic_drive_prepare(ar, a->drives + ar->key, ar->k, rs->x0[ar->slot], hw);
	}
	artic_drive_block_prepare(rs);
}

// The hold on the drive path; false (nothing applied) if a drive's share of it would exceed max_force.
static bool drive_path_hold(artic* a, double h)
{
	artic_rows* rs = &a->rows;
	double* kick = rs->fast_g;
	double* p = rs->fast_y;
	if (a->fixed_base)
	{
		artic_free_impulse(a, h, p); // slot s is dof s
	}
	else
	{
		for (int s = 0; s < rs->k; ++s)
		{
			kick[s] = rs->v[s] - a->qd[rs->act_dof[s]];
		}
		if (!artic_mass_times(a, h, kick, p))
		{
			return false;
		}
	}
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (!(fabs(p[ar->slot]) <= ar->bound * h))
		{
			return false;
		}
	}
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		const double hold = -p[ar->slot];
		if (hold != 0.0)
		{
			ar->hold = hold;
			ar->total = hold;
			rs->p[ar->slot] += hold;
		}
		rs->fast_share[ar->slot] = ar->hold * (1.0 / a->windows); // each window's share, as window_begin
		rs->fast_total[ar->slot] = ar->total;
		rs->v[ar->slot] = a->qd[rs->act_dof[ar->slot]];
	}
	return true;
}

// A window of the drive path, from its start (each drive's impulse starts at its share of the hold, as
// window_begin does; drives have no warm start or pseudo impulse), and the window's advance
// (artic_solve_advance, which skips the path: it has no pseudo speeds); false (nothing applied) if a drive
// would exceed its force or speed bound. Slot s is dof s and carries one drive row.
static bool drive_path_window(artic* a, double time_left, double hw)
{
	if (!(a->rows.fast_dense ? artic_drive_window_dense(a, time_left) : artic_drive_window(a, time_left)))
	{
		return false;
	}
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	const double* restrict delta = rs->fast_g;
	const double* restrict dv = rs->fast_y;
	double* restrict v = rs->v;
	double* restrict p = rs->p;
	double* restrict total = rs->fast_total;
	double* restrict dx = rs->dx;
	double* restrict y = rs->y;
	// A zero change leaves the impulses' bits as they are (they start at +0 and never become -0). Two
	// slots at a time (math/lanes.h), each lane as the loop below.
	const lane2 hw2 = lane2_splat(hw);
	int s = 0;
	for (; s + 2 <= k; s += 2)
	{
		const lane2 d2 = lane2_load(delta + s), p2 = lane2_load(p + s) + d2,
					v2 = lane2_load(v + s) + lane2_load(dv + s);
		lane2_store(total + s, lane2_load(total + s) + d2);
		lane2_store(p + s, p2);
		lane2_store(v + s, v2);
		lane2_store(dx + s, lane2_load(dx + s) + hw2 * v2);
		lane2_store(y + s, lane2_load(y + s) + hw2 * p2);
	}
	for (; s < k; ++s)
	{
		total[s] += delta[s];
		p[s] += delta[s];
		v[s] += dv[s];
		dx[s] += hw * v[s];
		y[s] += hw * p[s];
	}
	return true;
}

// The one-dof rows of an articulation (drive, friction, limits per active dof, in dof order).
static void build_dof_rows(const sn_world* world, artic* a, double hw)
{
	artic_rows* rs = &a->rows;
	for (int s = 0; s < rs->kd; ++s)
	{
		int d = rs->act_dof[s];
		const artic_link* l = a->links + a->dof_link[d];
		double x0 = rs->x0[s];
		if (rs->fast)
		{
			add_row(rs, ARTIC_ROW_DRIVE, s, d, 1.0, a->drives[d].max_force, 0.0);
			drive_path_prepare(rs, s, a->drives + d, x0, hw);
			continue; // the drive is the slot's only row
		}
		double r = rs->w[s * rs->k + s];
		if (a->drives[d].enabled)
		{
			add_row(rs, ARTIC_ROW_DRIVE, s, d, 1.0, a->drives[d].max_force, 0.0);
			artic_drive_prepare(rs->rows + rs->count - 1, a->drives + d, r, x0, hw);
		}
		if (l->joint_friction > 0.0)
		{
			add_row(rs, ARTIC_ROW_FRICTION, s, d, 1.0, l->joint_friction, 0.0);
		}
		const sn_limit* lim = a->limits + d;
		if (a->limit_near[d] != 0)
		{
			for (int side = 0; side < 2; ++side)
			{
				if (!(a->limit_near[d] & (1 << side)))
				{
					continue;
				}
				double sign = side == 0 ? 1.0 : -1.0;
				double c0 = side == 0 ? x0 - lim->lower : lim->upper - x0;
				add_row(rs, side == 0 ? ARTIC_ROW_LOWER : ARTIC_ROW_UPPER, s, d, sign, INFINITY, c0);
				artic_row* ar = rs->rows + rs->count - 1;
				if (lim->soft.kind != SN_SOFT_RIGID)
				{
					ar->soft = soft_coefficients_for(lim->soft, r, hw, 0.0, &ar->coef);
					if (!ar->soft)
					{
						rs->count -= 1; // a soft limit with zero stiffness and damping exerts nothing
					}
				}
				else
				{
					ar->splits = true;
					ar->coef.bias_rate = artic_row_bias_rate(a, world->def.erp, a->windows, hw);
				}
			}
		}
	}
}

// ---- the hold (TGS; file header, step 3) -------------------------------------------------------------------

// The hold rows: bilateral rows first (one per slot: a later row on the same slot has the same Jacobian
// up to sign), then the held limits on slots the bilateral rows do not already fix. A slot is fixed by a
// one-dof bilateral row on it, or, when it is a mimic row's follower, by that row together with one-dof
// bilateral rows on all of its other slots: a limit there lies in their span, so it is left out. (The
// factorisation would drop it too, but it decides by its own pivot relative to the row's K, and the
// rounding in that pivot grows with the mimic row's K ~ G^2 W: at a gearing of some tens it kept such a
// limit with a pivot of 1e-5 and an impulse of 1e9.) The bilateral part is the same in every active-set
// pass, so its factor is kept (*bilateral: its size). dx (zero before the first window) marks the slots
// fixed, and is cleared again.
static int hold_gather(artic* a, int* bilateral)
{
	artic_rows* rs = &a->rows;
	int m = 0, last_slot = -1;
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (unilateral(ar))
		{
			continue;
		}
		if (ar->kind != ARTIC_ROW_MIMIC)
		{
			if (ar->slot == last_slot)
			{
				continue;
			}
			last_slot = ar->slot;
			rs->dx[ar->slot] = 1.0;
		}
		rs->hold_rows[m++] = i;
	}
	*bilateral = m;
	// Followers fixed by their mimic row (one-dof rows precede mimic rows: their marks are all in).
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->hold_rows[i];
		bool fixed = ar->kind == ARTIC_ROW_MIMIC;
		for (int t = 1; fixed && t < ar->mcount; ++t)
		{
			fixed = rs->dx[ar->mslot[t]] == 1.0;
		}
		if (fixed)
		{
			rs->dx[ar->mslot[0]] = 2.0;
		}
	}
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (unilateral(ar) && ar->held && rs->dx[ar->slot] == 0.0)
		{
			rs->hold_rows[m++] = i;
			rs->dx[ar->slot] = 1.0;
		}
	}
	for (int s = 0; s < rs->k; ++s)
	{
		rs->dx[s] = 0.0;
	}
	return m;
}

// Solve (J W J^T) P = b over the hold rows by a Cholesky factorisation that drops a row whose pivot
// vanishes (its Jacobian depends on the earlier rows'): its P is 0 and the others solve without it. Rows
// before `from` keep the factor of the last call.
static void hold_solve(const sn_world* world, artic* a, int m, int from)
{
	artic_rows* rs = &a->rows;
	double* l = rs->hold_l;
	double* x = rs->hold_x;
	const int ld = rs->hold_capacity;
	for (int i = from; i < m; ++i)
	{
		const artic_row* ri = rs->rows + rs->hold_rows[i];
		for (int j = 0; j <= i; ++j)
		{
			const artic_row* rj = rs->rows + rs->hold_rows[j];
			double s = jacobian_coupling(world, a, ri, rj);
			const double* li = l + i * ld;
			const double* lj = l + j * ld;
			for (int t = 0; t < j; ++t)
			{
				s -= li[t] * lj[t];
			}
			if (i == j)
			{
				// Relative to the row's own K: a row within 1e-10 of the span of the earlier ones is dropped
				// (its reciprocal pivot is 0, so it takes no part).
				double pivot = s > 1e-10 * ri->k ? sqrt(s) : 0.0;
				l[i * ld + i] = pivot;
				rs->hold_inv[i] = pivot > 0.0 ? 1.0 / pivot : 0.0;
			}
			else
			{
				l[i * ld + j] = s * rs->hold_inv[j];
			}
		}
	}
	for (int i = 0; i < m; ++i)
	{
		double s = x[i];
		for (int t = 0; t < i; ++t)
		{
			s -= l[i * ld + t] * x[t];
		}
		x[i] = s * rs->hold_inv[i];
	}
	for (int i = m - 1; i >= 0; --i)
	{
		double s = x[i];
		for (int t = i + 1; t < m; ++t)
		{
			s -= l[t * ld + i] * x[t];
		}
		x[i] = s * rs->hold_inv[i];
	}
}

// The hold by one pass of the inertia (structured rows). When every dof is an active slot (links of at
// most one dof, no base slots) and the hold rows pivot one to one on the slots (a one-dof row on its slot,
// J = +-e_s; a mimic row on its follower's slot, J = e_f + sum_t G_t e_t, whose other slots t are pivots
// of bilateral one-dof rows), J is square, invertible and triangular in that order, and
//   (J W J^T)^-1 = J^-T W^-1 J^-1,
// with W^-1 the inverse of the response over every dof: the joint-space inertia M, or for a floating base
// (which no row holds) its Schur complement M_dd - M_db M_bb^-1 M_bd, the impulse on the dofs alone that
// changes their speeds by x while the tree keeps its momentum. artic_mass_times applies it in one O(n)
// pass. So P = J^-T W^-1 J^-1 b costs two O(k) substitutions and that pass, where the factorisation
// costs O(k^3) (k = 42 on a NAO with a drive on every leader and 17 mimic followers). (A held limit on a
// follower's slot would lie in the span of its mimic row and the leaders' rows: hold_gather leaves it
// out.) The two agree to rounding. Any other set of rows takes the factorisation. False (nothing written
// but x) if the rows are not so structured or a floating base's inertia is singular.
enum
{
	PIVOT_BILATERAL = 1, // a drive or friction row's slot
	PIVOT_FOLLOWER = 2,  // a mimic row's follower
	PIVOT_LIMIT = 3      // a held limit's slot
};

static bool hold_pivots(const artic* a, int m)
{
	const artic_rows* rs = &a->rows;
	double* mark = rs->dx;
	int pivots = 0;
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->hold_rows[i];
		const bool mimic = ar->kind == ARTIC_ROW_MIMIC;
		const int s = mimic ? ar->mslot[0] : ar->slot;
		if (mark[s] != 0.0 || a->links[a->dof_link[rs->act_dof[s]]].dof_count != 1 || (mimic && ar->mgear[0] != 1.0))
		{
			return false;
		}
		mark[s] = mimic ? PIVOT_FOLLOWER : (unilateral(ar) ? PIVOT_LIMIT : PIVOT_BILATERAL);
		pivots += 1;
	}
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->hold_rows[i];
		for (int t = 1; ar->kind == ARTIC_ROW_MIMIC && t < ar->mcount; ++t)
		{
			if (mark[ar->mslot[t]] != PIVOT_BILATERAL)
			{
				return false;
			}
		}
	}
	return pivots == rs->k && pivots == m;
}

static bool hold_structured(artic* a, int m, double h)
{
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	if (rs->kd != k || k != a->dof_count || m != k)
	{
		return false;
	}
	// Pivots are marked in dx (zero outside hold_gather), and cleared again before returning.
	double* mark = rs->dx;
	bool ok = hold_pivots(a, m);
	double* x = rs->hold_x;
	double* sv = rs->fast_y; // by slot: J^-1 b, the speed changes on the slots
	double* g = rs->fast_g;  // by dof, then by slot: W^-1 J^-1 b
	if (ok)
	{
		for (int i = 0; i < m; ++i)
		{
			const artic_row* ar = rs->rows + rs->hold_rows[i];
			if (ar->kind != ARTIC_ROW_MIMIC)
			{
				sv[ar->slot] = ar->sign * x[i]; // sign is +-1: its own reciprocal
			}
		}
		for (int i = 0; i < m; ++i)
		{
			const artic_row* ar = rs->rows + rs->hold_rows[i];
			if (ar->kind == ARTIC_ROW_MIMIC)
			{
				double v = x[i];
				for (int t = 1; t < ar->mcount; ++t)
				{
					v -= ar->mgear[t] * sv[ar->mslot[t]];
				}
				sv[ar->mslot[0]] = v;
			}
		}
		for (int s = 0; s < k; ++s)
		{
			g[rs->act_dof[s]] = sv[s];
		}
		ok = artic_mass_times(a, h, g, sv);
	}
	if (ok)
	{
		for (int s = 0; s < k; ++s)
		{
			g[s] = sv[rs->act_dof[s]];
		}
		// J^T P = g: a follower's slot has its mimic row alone; each one-dof pivot then takes what is left.
		for (int i = 0; i < m; ++i)
		{
			const artic_row* ar = rs->rows + rs->hold_rows[i];
			if (ar->kind == ARTIC_ROW_MIMIC)
			{
				const double p = g[ar->mslot[0]];
				x[i] = p;
				for (int t = 1; t < ar->mcount; ++t)
				{
					g[ar->mslot[t]] -= ar->mgear[t] * p;
				}
			}
		}
		for (int i = 0; i < m; ++i)
		{
			const artic_row* ar = rs->rows + rs->hold_rows[i];
			if (ar->kind != ARTIC_ROW_MIMIC)
			{
				x[i] = ar->sign * g[ar->slot];
			}
		}
	}
	for (int s = 0; s < k; ++s)
	{
		mark[s] = 0.0;
	}
	return ok;
}

// The hold's target speed for a unilateral row: an inelastic limit at the start of the step, which closes
// its gap c_0 > 0 by the end of the step and stops there (J v >= -c_0 / h), or for c_0 <= 0 stops the
// approach (J v >= 0; the error itself is the split impulse's).
static double hold_floor(const artic_row* ar, double h)
{
	return ar->c0 > 0.0 ? -ar->c0 / h : 0.0;
}

// What the kick's hold holds a limit at: its floor; or, after hold_impact (split), its speed before the
// kick when that is lower (an impact hold_impact could not stop): the hold then holds only the kick.
static double hold_target(const sn_world* world, const artic* a, const artic_row* ar, double h, bool split)
{
	const double least = hold_floor(ar, h);
	if (!split)
	{
		return least;
	}
	const double before = jacobian_dot(world, a, ar, a->rows.pp);
	return before < least ? before : least;
}

// The hold's right-hand side (J W J^T) P = rhs for a row, with qd (the speeds before the kick) in pp.
// Bilateral rows hold the kick: J (kick + W J^T P) = 0. Unilateral ones are held at hold_target (their
// floor): J (qd* + W J^T P) = floor, as an inelastic contact would be (and only while they push, see below).
static double hold_rhs(const sn_world* world, const artic* a, const artic_row* ar, double h, bool split)
{
	const artic_rows* rs = &a->rows;
	double now = jacobian_dot(world, a, ar, rs->v);
	if (unilateral(ar))
	{
		return hold_target(world, a, ar, h, split) - now;
	}
	return jacobian_dot(world, a, ar, rs->pp) - now;
}

// P_hold: hold the kick qd* - qd on the rows' coordinates, apply it, and give each window its share.
// Limits make it a complementarity problem (a limit only pushes, and only when the step's motion would
// carry it past its floor), solved by active-set passes: a limit is held when its speed would be below
// its floor (first with the free motion, then with the hold applied), and released when holding it would
// pull; whatever is left is clamped (a limit never pulls) and the windows finish it. The bilateral rows'
// factor is kept between passes. A limit that separates is never pushed: the hold adds no energy.
// Active-set passes of the hold: the first from the free motion, one to correct it. Limits that a second
// pass would still change are left to the windows' sweeps, which solve them exactly per window.
enum
{
	HOLD_PASSES = 2
};
// A limit approaching its floor slower than this (m/s or rad/s) is left to the windows' sweeps rather
// than held: resting contacts whose speed is rounding noise would otherwise flip in and out of the set.
#define HOLD_SLACK 1e-9

// One active-set update after a solve of the hold's m rows (hold_x): a held limit whose impulse would pull
// is released; if none is, a limit not held that its speed (before the kick for the impact: pp; after it:
// v) plus the rows' impulses would carry below its target joins (the impact's target is the floor, and it
// leaves soft limits out). Returns whether the set changed.
static bool hold_active_set(const sn_world* world, artic* a, int m, double h, bool impact, bool split)
{
	artic_rows* rs = &a->rows;
	bool changed = false;
	for (int i = 0; i < m; ++i)
	{
		artic_row* ar = rs->rows + rs->hold_rows[i];
		if (unilateral(ar) && rs->hold_x[i] < 0.0)
		{
			ar->held = false;
			changed = true;
		}
	}
	const double* speed = impact ? rs->pp : rs->v;
	for (int r = 0; r < rs->count && !changed; ++r)
	{
		artic_row* ar = rs->rows + r;
		if (ar->held || !unilateral(ar) || (impact && ar->soft))
		{
			continue;
		}
		double jv = jacobian_dot(world, a, ar, speed);
		for (int i = 0; i < m; ++i)
		{
			jv += jacobian_coupling(world, a, ar, rs->rows + rs->hold_rows[i]) * rs->hold_x[i];
		}
		const double target = impact ? hold_floor(ar, h) : hold_target(world, a, ar, h, split);
		if (jv < target - HOLD_SLACK)
		{
			ar->held = true;
			changed = true;
		}
	}
	return changed;
}

// The rigid mimic rows an impact moves: those that share a dof with a held limit or with another such
// row (the limits' components of the graph of rigid mimic rows over the slots). Their indices go to
// hold_rows with a zero right-hand side; returns their count. dx marks the slots reached, and is cleared.
static int hold_impact_mimics(artic* a)
{
	artic_rows* rs = &a->rows;
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (ar->held && unilateral(ar))
		{
			rs->dx[ar->slot] = 1.0;
		}
	}
	int m = 0;
	for (bool grew = true; grew;)
	{
		grew = false;
		for (int i = 0; i < rs->count; ++i)
		{
			artic_row* ar = rs->rows + i;
			if (ar->kind != ARTIC_ROW_MIMIC || ar->soft || ar->held)
			{
				continue; // a mimic row's held flag marks it taken here (the hold sets it again)
			}
			bool touches = false;
			for (int t = 0; t < ar->mcount && !touches; ++t)
			{
				touches = rs->dx[ar->mslot[t]] != 0.0;
			}
			if (touches)
			{
				for (int t = 0; t < ar->mcount; ++t)
				{
					rs->dx[ar->mslot[t]] = 1.0;
				}
				ar->held = true;
				rs->hold_rows[m] = i;
				rs->hold_x[m++] = 0.0;
				grew = true;
			}
		}
	}
	for (int i = 0; i < m; ++i)
	{
		rs->rows[rs->hold_rows[i]].held = false;
	}
	for (int s = 0; s < rs->k; ++s)
	{
		rs->dx[s] = 0.0;
	}
	return m;
}

// Impacts, before the kick is held: limits whose speed before the kick already carries them past their
// floor are stopped as inelastic contacts, together with the rigid mimic rows that link their dofs to
// others (hold_impact_mimics: they carry the impact on, rigidly), and without the springs (drives, soft
// mimic rows and soft limits) and friction, which an impact in n steps of tau/n would find soft at the
// window's scale. Holding the impact with the drives rigid, as the kick's hold does, would load it onto
// them, and each window would then hand a drive's share back as speed: through a mimic row of large
// gearing onto a limit this fed the next step's impact, and the world diverged (gearings of 10 and more:
// test_mimic_impact_does_not_load_drives). Rigid mimic rows that share no dof with the impact (directly
// or through such rows) are left to the windows, which correct what the tree's inertia passes on to
// them: a factor over all of them every step cost the PR2 a further 1.4%. The impulse P_A solves
//   (J W J^T) P_A = floor - J qd   (limits),   0   (those mimic rows: the impact moves them along)
// over those rows, with active-set passes as the hold's (a limit that would pull is released, one that
// the impulses would carry past its floor joins, then what is left is clamped); a follower's limit whose
// leaders all have one lies in their span and is left out, as hold_gather does. P_A is applied to the
// speeds before and after the kick alike, and becomes part of each row's hold (its windows' shares, and
// no part of the warm start).
static bool hold_impact(const sn_world* world, artic* a, double h)
{
	artic_rows* rs = &a->rows;
	bool springs = false, any = false;
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		springs = springs || ar->kind == ARTIC_ROW_DRIVE || (ar->soft && !unilateral(ar));
		ar->held = unilateral(ar) && !ar->soft && jacobian_dot(world, a, ar, rs->pp) < hold_floor(ar, h) - HOLD_SLACK;
		any = any || ar->held;
	}
	if (!springs || !any)
	{
		return false;
	}
	int m = 0;
	for (int pass = 0; pass < HOLD_PASSES + 1; ++pass)
	{
		const int mimics = m = hold_impact_mimics(a);
		// dx marks (zero before the first window, cleared again): 1 a slot with a held limit, 2 a follower's
		// slot whose leaders all have one (its limit then lies in the span of theirs and the mimic row's,
		// and is left out, as hold_gather does), 3 a slot whose limit is taken (one per slot).
		for (int i = 0; i < rs->count; ++i)
		{
			const artic_row* ar = rs->rows + i;
			if (ar->held && unilateral(ar))
			{
				rs->dx[ar->slot] = 1.0;
			}
		}
		for (int i = 0; i < mimics; ++i)
		{
			const artic_row* ar = rs->rows + rs->hold_rows[i];
			bool fixed = rs->dx[ar->mslot[0]] == 1.0;
			for (int t = 1; fixed && t < ar->mcount; ++t)
			{
				fixed = rs->dx[ar->mslot[t]] != 0.0;
			}
			if (fixed)
			{
				rs->dx[ar->mslot[0]] = 2.0;
			}
		}
		for (int i = 0; i < rs->count; ++i)
		{
			const artic_row* ar = rs->rows + i;
			if (ar->held && rs->dx[ar->slot] == 1.0)
			{
				rs->dx[ar->slot] = 3.0;
				rs->hold_rows[m] = i;
				rs->hold_x[m++] = hold_floor(ar, h) - jacobian_dot(world, a, ar, rs->pp);
			}
		}
		for (int s = 0; s < rs->k; ++s)
		{
			rs->dx[s] = 0.0;
		}
		hold_solve(world, a, m, 0);
		if (!hold_active_set(world, a, m, h, true, false))
		{
			break;
		}
	}
	// Applied to the speeds after the kick (v) and before it (pp) alike: vp, zero until the windows,
	// keeps v's old values meanwhile.
	for (int s = 0; s < rs->k; ++s)
	{
		rs->vp[s] = rs->v[s];
	}
	for (int i = 0; i < m; ++i)
	{
		artic_row* ar = rs->rows + rs->hold_rows[i];
		double lo, hi;
		row_bounds(ar, h, &lo, &hi);
		double p = rs->hold_x[i];
		p = p < lo ? lo : (p > hi ? hi : p);
		if (p != 0.0)
		{
			ar->hold = p;
			ar->total = p;
			jacobian_apply(world, a, ar, p, rs->v, rs->p);
		}
	}
	for (int s = 0; s < rs->k; ++s)
	{
		rs->pp[s] += rs->v[s] - rs->vp[s];
		rs->vp[s] = 0.0;
	}
	return true;
}

static void hold_kick(const sn_world* world, artic* a, double h)
{
	artic_rows* rs = &a->rows;
	for (int s = 0; s < rs->kd; ++s)
	{
		rs->pp[s] = a->qd[rs->act_dof[s]];
	}
	if (rs->k > rs->kd)
	{
		base_slots_set(rs, a->base_v_start, rs->pp);
	}
	const bool split = hold_impact(world, a, h);
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		ar->held =
			!unilateral(ar) || jacobian_dot(world, a, ar, rs->v) < hold_target(world, a, ar, h, split) - HOLD_SLACK;
	}
	int m = 0, bilateral = 0, factored = 0; // factored: rows of the factor the last pass left in hold_l
	for (int pass = 0; pass < HOLD_PASSES; ++pass)
	{
		m = hold_gather(a, &bilateral);
		for (int i = 0; i < m; ++i)
		{
			rs->hold_x[i] = hold_rhs(world, a, rs->rows + rs->hold_rows[i], h, split);
		}
		if (artic_structured_hold && hold_structured(a, m, h))
		{
			world->artics->structured_holds += 1;
		}
		else
		{
			hold_solve(world, a, m, factored >= bilateral ? bilateral : 0);
			factored = m;
		}
		if (!hold_active_set(world, a, m, h, false, split))
		{
			break;
		}
	}
	for (int s = 0; s < rs->k; ++s)
	{
		rs->pp[s] = 0.0;
	}
	for (int i = 0; i < m; ++i)
	{
		artic_row* ar = rs->rows + rs->hold_rows[i];
		double lo, hi;
		row_bounds(ar, h, &lo, &hi);
		double p = ar->hold + rs->hold_x[i]; // with the impact's part (hold_impact)
		p = p < lo ? lo : (p > hi ? hi : p);
		if (p != ar->hold)
		{
			jacobian_apply(world, a, ar, p - ar->hold, rs->v, rs->p);
			ar->hold = p;
			ar->total = p;
		}
	}
}

// ---- warm start (file header, step 4) -------------------------------------------------------------------

static double warm_force(const sn_world* world, const artic* a, const artic_row* ar)
{
	if (ar->kind == ARTIC_ROW_MIMIC)
	{
		return world->artics->mimics[ar->key].warm;
	}
	return a->warm[ar->key * ARTIC_WARM_SLOTS + ar->kind];
}

// Each row's warm-start impulse per window, such that the window's accumulator (its share of the hold
// plus the warm start) stays within the row's bounds.
static void warm_prepare(const sn_world* world, artic* a, double hw)
{
	artic_rows* rs = &a->rows;
	const double factor = world->def.warm_start;
	if (!(factor > 0.0))
	{
		return;
	}
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		if (a->tgs && (ar->kind == ARTIC_ROW_DRIVE || ar->soft))
		{
			continue; // springs start every window from zero
		}
		double w = warm_force(world, a, ar) * hw * factor;
		if (!(w != 0.0))
		{
			continue; // zero (or, defensively, NaN) warm starts apply nothing
		}
		double share = ar->hold / a->windows, lo, hi;
		row_bounds(ar, hw, &lo, &hi);
		double acc = share + w;
		acc = acc < lo ? lo : (acc > hi ? hi : acc);
		ar->warm = acc - share;
	}
}

// A new window: the accumulators start from the window's share of the hold, and the warm starts apply.
static inline void window_begin(const sn_world* world, artic* a)
{
	artic_rows* rs = &a->rows;
	const double inv_n = 1.0 / a->windows;
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		ar->acc = ar->hold * inv_n + ar->warm;
		if (ar->warm != 0.0)
		{
			ar->total += ar->warm;
			jacobian_apply(world, a, ar, ar->warm, rs->v, rs->p);
		}
		if (ar->push != 0.0)
		{
			// The pseudo impulse of the last window starts this one (the pseudo speeds were dropped).
			jacobian_apply(world, a, ar, ar->push, rs->vp, rs->pp);
		}
	}
}

static void begin_one(sn_world* world, int index, artic* a, double h, bool tgs, int windows)
{
	if (artic_forward(a, world->def.gravity, h))
	{
		world->artics->midpoint_passes += 1;
	}
	a->solve_h = h;
	a->tgs = tgs;
	a->windows = windows;
	artic_rows* rs = &a->rows;
	rs->count = 0;
	rs->k = 0;
	rs->kd = 0;
	rs->fast = false;
	rs->fast_dense = false;
	a->base_impulse[0] = sv6_zero();
	a->base_impulse[1] = sv6_zero();
	if (rs->k_capacity == 0)
	{
		return;
	}
	for (int d = 0; d < a->dof_count; ++d)
	{
		a->dof_slot[d] = -1;
	}
	if (a->mimic_count > 0)
	{
		const artic_store* s = world->artics;
		for (int m = 0; m < s->mimic_high; ++m)
		{
			const artic_mimic* mm = s->mimics + m;
			if (mm->live && mm->artic == index)
			{
				for (int i = 0; i < mm->def.dof_count; ++i)
				{
					a->dof_slot[mm->def.dofs[i]] = 0;
				}
			}
		}
	}
	// Links with contact rows: every dof on their paths to the root, and a floating base's velocity.
	bool contacts = false;
	for (int i = 0; (a->shape_count > 0 || a->link_joint_count > 0) && i < a->link_count; ++i)
	{
		if (!a->link_contact[i])
		{
			continue;
		}
		contacts = true;
		for (int j = i; j > 0; j = a->links[j].parent)
		{
			const artic_link* l = a->links + j;
			for (int d = 0; d < l->dof_count; ++d)
			{
				a->dof_slot[l->dof + d] = 0;
			}
		}
	}
	choose_active(a, h, contacts && !a->fixed_base);
	if (rs->k == 0)
	{
		return;
	}
	choose_spans(a);
	rs->fast = tgs && artic_drive_path && drive_path_applies(a, contacts);
	if (!rs->fast)
	{
		artic_compute_response(a);
	}
	for (int s = 0; s < rs->k; ++s)
	{
		rs->v[s] = 0.0;
		rs->x0[s] = 0.0;
		rs->dx[s] = 0.0;
		rs->p[s] = 0.0;
		rs->y[s] = 0.0;
		rs->vp[s] = 0.0;
		rs->pp[s] = 0.0;
	}
	for (int s = 0; s < rs->kd; ++s)
	{
		int d = rs->act_dof[s];
		rs->v[s] = a->qd_free[d];
		rs->x0[s] = a->q[d];
	}
	if (rs->k > rs->kd)
	{
		base_slots_set(rs, a->base_v_free, rs->v);
	}
	double hw = h / windows;
	build_dof_rows(world, a, hw);
	artic_mimic_build_rows(world, index, a, hw, windows);
	if (rs->fast)
	{
		rs->block_count = 0;
		// The factor first: the hold applies its impulses only when the path goes on.
		rs->fast_dense = a->fixed_base && artic_drive_dense && artic_drive_inverse(a, h, rs->fast_a);
		if (!((rs->fast_dense ||
			   artic_drive_factor(a, h, rs->fast_a, rs->fast_u6, rs->fast_dinv, rs->fast_base_l, rs->fast_base_dinv)) &&
			  drive_path_hold(a, h)))
		{
			drive_path_leave(world, a, hw);
			hold_kick(world, a, h);
		}
		world->artics->path_dense += rs->fast && rs->fast_dense; // its windows take the inverse
	}
	else
	{
		artic_drive_block_prepare(rs);
		if (tgs)
		{
			hold_kick(world, a, h);
		}
	}
	warm_prepare(world, a, hw);
	if (!tgs)
	{
		window_begin(world, a); // PGS: the one window
	}
}

void artic_solve_begin(sn_world* world, double h, bool tgs, int windows)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	s->solving = 0;
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (a->live && a->asleep)
		{
			a->rows.count = 0; // a sleeping articulation takes no part in the solve (island.c)
			a->rows.fast = false;
			a->rows.fast_dense = false;
			a->rows.k = 0;
			a->rows.kd = 0;
		}
		else if (a->live)
		{
			begin_one(world, i, a, h, tgs, windows);
			s->solving += a->rows.k > 0;
		}
	}
}

// ---- sweeps -----------------------------------------------------------------------------------------------

// The articulation's drives solved together (artic/drive.c). Returns false, applying nothing, if a drive
// would exceed its force bound: the sweep then updates the drives one by one.
static bool drive_block(const sn_world* world, artic* a, double hw, double time_left)
{
	artic_rows* rs = &a->rows;
	const int m = rs->block_count;
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		double lambda = artic_drive_solve(ar, rs->v[ar->slot], a->tgs ? rs->dx[ar->slot] : 0.0, time_left);
		rs->block_x[i] = ar->drive_diag * (lambda - ar->acc);
	}
	artic_drive_block_solve(rs);
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		if (!(fabs(ar->acc + rs->block_x[i]) <= ar->bound * hw))
		{
			return false;
		}
	}
	if (!rs->block_span)
	{
		for (int i = 0; i < m; ++i)
		{
			const artic_row* ar = rs->rows + rs->block_rows[i];
			const double lambda = ar->acc + rs->block_x[i];
			if (ar->drive_speed < INFINITY)
			{
				// The drive's end speed with every drive's change.
				double v = rs->v[ar->slot];
				for (int j = 0; j < m; ++j)
				{
					v += rs->w[rs->rows[rs->block_rows[j]].slot * rs->k + ar->slot] * rs->block_x[j];
				}
				if ((lambda > 0.0 && v > ar->drive_speed) || (lambda < 0.0 && v < -ar->drive_speed))
				{
					return false;
				}
			}
		}
		for (int i = 0; i < m; ++i)
		{
			artic_row* ar = rs->rows + rs->block_rows[i];
			double delta = rs->block_x[i];
			if (delta != 0.0)
			{
				ar->acc += delta;
				ar->total += delta;
				jacobian_apply(world, a, ar, delta, rs->v, rs->p);
			}
		}
		return true;
	}
	// Every row moves the same slots: the speeds take the rows' changes in row order, as row-by-row
	// applications would, two slots at a time (a drive row's Jacobian is +e_slot), into block_v first:
	// the drives' speed bounds are checked on those end speeds, and only then do they replace v.
	const artic_row* first = rs->rows + rs->block_rows[0];
	const double* x = rs->block_x;
	const double* w = rs->w;
	double* v = rs->block_v;
	// The rows whose change is not zero (a zero change is not applied at all), in row order, two at a time.
	double* d = rs->block_d;
	int32_t* col = rs->block_nz;
	int count = 0;
	for (int i = 0; i < m; ++i)
	{
		if (x[i] != 0.0)
		{
			d[count] = x[i];
			col[count++] = rs->block_col[i];
		}
	}
	const int lo = first->lo, hi = first->hi;
	memcpy(v + lo, rs->v + lo, (size_t)(hi - lo) * sizeof(double));
	int c = 0;
	for (; c + 2 <= count; c += 2)
	{
		const double* w0 = w + col[c];
		const double* w1 = w + col[c + 1];
		const lane2 d0 = lane2_splat(d[c]), d1 = lane2_splat(d[c + 1]);
		int s = lo;
		for (; s + 2 <= hi; s += 2)
		{
			lane2_store(v + s, (lane2_load(v + s) + d0 * lane2_load(w0 + s)) + d1 * lane2_load(w1 + s));
		}
		if (s < hi)
		{
			v[s] = (v[s] + d[c] * w0[s]) + d[c + 1] * w1[s];
		}
	}
	if (c < count)
	{
		artic_axpy(v, d[c], w + col[c], lo, hi);
	}
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		const double lambda = ar->acc + x[i], end = v[ar->slot];
		if ((lambda > 0.0 && end > ar->drive_speed) || (lambda < 0.0 && end < -ar->drive_speed))
		{
			return false;
		}
	}
	memcpy(rs->v + lo, v + lo, (size_t)(hi - lo) * sizeof(double));
	for (int i = 0; i < m; ++i)
	{
		artic_row* ar = rs->rows + rs->block_rows[i];
		double delta = x[i];
		if (delta != 0.0)
		{
			ar->acc += delta;
			ar->total += delta;
			rs->p[ar->slot] += ar->sign * delta;
		}
	}
	return true;
}

// The pseudo impulse of a rigid row in a position sweep towards the pseudo speed J v_p = target.
static inline void push_row(const sn_world* world, artic* a, artic_row* ar, double target, double hw)
{
	artic_rows* rs = &a->rows;
	double dq = (target - jacobian_dot(world, a, ar, rs->vp)) * ar->inv_k;
	double lo, hi;
	row_bounds(ar, hw, &lo, &hi);
	dq = clamp_accumulate(&ar->push, dq, lo, hi);
	if (dq != 0.0)
	{
		jacobian_apply(world, a, ar, dq, rs->vp, rs->pp);
	}
}

// The pseudo speed a rigid row asks for: -beta c, at most max_correction_speed, while its error is above
// 1e-12 (m or rad; the rounding of a coordinate); a limit not reached (c > 0) only keeps the other rows' corrections from carrying it past its gap
// within the window (J v_p >= -c / rho), and has no target while it has no pseudo impulse.
static inline void correct_row(const sn_world* world, artic* a, artic_row* ar, double c, double hw)
{
	if (unilateral(ar) && c > 0.0)
	{
		if (ar->push != 0.0 || jacobian_dot(world, a, ar, a->rows.vp) < -c / hw)
		{
			push_row(world, a, ar, -c / hw, hw);
		}
		return;
	}
	if (fabs(c) <= 1e-12)
	{
		// An error at rounding level (a rigid row held exactly leaves 1e-17 here) needs no correction. A row
		// that carries a pseudo impulse keeps its coordinate still (target 0) under the other rows' pseudo
		// speeds, which is where the target -beta c tends as c does: withdrawing the impulse instead (as
		// once) jumped at the band's edge, and two worlds 1e-14 apart parted by 8.8e-4 rad when they crossed
		// it in different windows. A row without one is left alone (holding every exact row so would cost
		// the PR2's free step 16%, its ten mimic rows each window); it takes one as soon as its error
		// leaves the band, a window later.
		if (ar->push != 0.0)
		{
			push_row(world, a, ar, 0.0, hw);
		}
		return;
	}
	const double vmax = a->max_correction_speed;
	double target = -ar->coef.bias_rate * c;
	target = target > vmax ? vmax : (target < -vmax ? -vmax : target);
	push_row(world, a, ar, target, hw);
}

static void sweep_one(const sn_world* world, artic* a, artic_sweep sweep, int window)
{
	artic_rows* rs = &a->rows;
	const double hw = a->solve_h / a->windows;
	const double inv_hw = 1.0 / hw;
	const bool tgs = a->tgs;
	const bool position = sweep == ARTIC_SWEEP_PGS_POSITION || sweep == ARTIC_SWEEP_TGS_POSITION;
	const bool frozen = sweep == ARTIC_SWEEP_TGS_VELOCITY;
	// Time from the end of this window to the end of the solve (TGS sub-target, the drive note's eq. 41).
	const double time_left = (sweep == ARTIC_SWEEP_TGS_POSITION) ? a->solve_h - window * hw : 0.0;
	if (rs->fast)
	{
		// Only drives: TGS velocity sweeps freeze them (the drive note), position sweeps are windows.
		if (frozen)
		{
			return;
		}
		if (drive_path_window(a, time_left, hw))
		{
			world->artics->path_windows += 1;
			return;
		}
		drive_path_leave(world, a, hw);
	}
	if (sweep == ARTIC_SWEEP_TGS_POSITION)
	{
		window_begin(world, a);
	}
	const bool block = !frozen && rs->block_count > 0 && drive_block(world, a, hw, time_left);
	for (int i = 0; i < rs->count; ++i)
	{
		artic_row* ar = rs->rows + i;
		if (block && ar->kind == ARTIC_ROW_DRIVE)
		{
			continue;
		}
		double v, dx;
		if (ar->kind == ARTIC_ROW_MIMIC)
		{
			v = jacobian_dot(world, a, ar, rs->v);
			dx = tgs ? jacobian_dot(world, a, ar, rs->dx) : 0.0;
		}
		else
		{
			v = ar->sign * rs->v[ar->slot];
			dx = ar->sign * rs->dx[ar->slot];
		}
		double c = tgs ? ar->c0 + dx : ar->c0;
		double delta, lo, hi;
		row_bounds(ar, hw, &lo, &hi);
		switch ((artic_row_kind)ar->kind)
		{
			case ARTIC_ROW_DRIVE:
			{
				if (frozen)
				{
					continue; // TGS velocity sweeps freeze springs (the drive note)
				}
				double lambda = artic_drive_solve(ar, v, tgs ? dx : 0.0, time_left);
				if (ar->drive_speed < INFINITY)
				{
					lambda = artic_drive_speed_clamp(ar, v, lambda);
				}
				delta = lambda - ar->acc;
				break;
			}
			case ARTIC_ROW_FRICTION:
				delta = -v * ar->inv_k;
				break;
			case ARTIC_ROW_LOWER:
			case ARTIC_ROW_UPPER:
				if (c > 0.0)
				{
					delta = -(v + c * inv_hw) * ar->inv_k;
				}
				else if (ar->soft)
				{
					if (frozen)
					{
						continue;
					}
					delta = -ar->coef.eff_mass * (v + ar->coef.bias_rate * c) - ar->coef.impulse_scale * ar->acc;
				}
				else
				{
					delta = -v * ar->inv_k;
				}
				break;
			case ARTIC_ROW_MIMIC:
			default:
				if (ar->soft)
				{
					if (frozen)
					{
						continue;
					}
					delta = -ar->coef.eff_mass * (v + ar->coef.bias_rate * c) - ar->coef.impulse_scale * ar->acc;
				}
				else
				{
					delta = -ar->coef.eff_mass * v;
				}
				break;
		}
		delta = clamp_accumulate(&ar->acc, delta, lo, hi);
		if (delta != 0.0)
		{
			ar->total += delta;
			jacobian_apply(world, a, ar, delta, rs->v, rs->p);
		}
		if (position && ar->splits)
		{
			correct_row(world, a, ar, c, hw);
		}
	}
}

bool artic_solve_has_rows(const sn_world* world)
{
	return world->artics != NULL && world->artics->solving > 0;
}

void artic_solve_sweep(sn_world* world, artic_sweep sweep, int window)
{
	artic_store* s = world->artics;
	if (s == NULL || s->solving == 0)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (a->live && a->rows.count > 0)
		{
			sweep_one(world, a, sweep, window);
		}
	}
}

void artic_solve_advance(sn_world* world, double hw)
{
	artic_store* s = world->artics;
	if (s == NULL || s->solving == 0)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (!a->live || a->rows.k == 0 || a->rows.fast)
		{
			continue; // the drive path advances in its windows (drive_path_window)
		}
		artic_rows* rs = &a->rows;
		for (int k = 0; k < rs->k; ++k)
		{
			// The window's pseudo speeds move the positions of this window only.
			rs->dx[k] += hw * (rs->v[k] + rs->vp[k]);
			rs->y[k] += hw * (rs->p[k] + rs->pp[k]);
			rs->vp[k] = 0.0;
			rs->pp[k] = 0.0;
		}
	}
}

// ---- end ---------------------------------------------------------------------------------------------------

static void end_one(sn_world* world, artic* a)
{
	artic_rows* rs = &a->rows;
	const double h = a->solve_h;
	// Warm starts and efforts are written only by rows; reset them only where rows wrote them.
	if (a->warm_set)
	{
		memset(a->warm, 0, (size_t)a->dof_count * ARTIC_WARM_SLOTS * sizeof(double));
		a->warm_set = false;
	}
	if (a->first_substep && a->effort_set)
	{
		memset(a->effort, 0, (size_t)a->dof_count * sizeof(double));
		a->effort_set = false;
	}
	bool have_rows = rs->k > 0;
	const bool responded = rs->fast && a->fixed_base;
	if (rs->fast)
	{
		drive_path_sync(rs);
	}
	if (have_rows)
	{
		const double inv_h = 1.0 / h;
		for (int i = 0; i < rs->count; ++i)
		{
			const artic_row* ar = rs->rows + i;
			if (ar->kind == ARTIC_ROW_MIMIC)
			{
				continue;
			}
			// What the next solve warm-starts from: the force beyond the hold (file header, step 4).
			a->warm[ar->key * ARTIC_WARM_SLOTS + ar->kind] = (ar->total - ar->hold) * inv_h;
			a->warm_set = true;
			if (ar->kind == ARTIC_ROW_DRIVE)
			{
				a->effort[ar->key] += ar->total;
				a->effort_set = true;
			}
		}
		artic_mimic_store(world, a, h);
		if (responded)
		{
			// The drive path on a fixed base: every dof is a slot, and its windows left each one's end speed
			// in v and its displacement over the solve in dx (the sum of rho v over the windows), which are
			// qd* + M^-1 P and h qd* + M^-1 Y (file header, step 6) without the impulse pass.
			for (int s = 0; s < rs->k; ++s)
			{
				const double qd_free = a->qd_free[s];
				a->dw[s].y[0] = rs->v[s] - qd_free;
				a->dw[s].y[1] = rs->dx[s] - h * qd_free;
			}
		}
		else
		{
			for (int d = 0; d < a->dof_count; ++d)
			{
				a->dw[d].y[0] = 0.0;
				a->dw[d].y[1] = 0.0;
			}
			for (int s = 0; s < rs->kd; ++s)
			{
				a->dw[rs->act_dof[s]].y[0] = rs->p[s];
				a->dw[rs->act_dof[s]].y[1] = rs->y[s];
			}
		}
		if (rs->k > rs->kd)
		{
			// The contacts' impulse on the base (generalised force on its velocity slots) and its integral.
			a->base_impulse[0] = base_slots_get(rs, rs->p);
			a->base_impulse[1] = base_slots_get(rs, rs->y);
		}
	}
	if (have_rows && a->free_history != ARTIC_FREE_NONE)
	{
		// Row and contact impulses change the speeds at once, and with them the next free accelerations: no
		// trend runs through this solve (artic/dynamics.c); its accelerations still predict the next one's.
		a->free_history = ARTIC_FREE_AFTER_ROWS;
	}
	artic_finish(a, h, have_rows, responded);
	if (a->shape_count > 0 || a->link_joint_count > 0)
	{
		memset(a->link_contact, 0, (size_t)a->link_count);
	}
}

void artic_solve_end(sn_world* world)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		if (s->items[i].live && !s->items[i].asleep)
		{
			end_one(world, s->items + i);
		}
	}
}

// ---- contact rows on links ----------------------------------------------------------------------------------

void artic_mark_contact_link(artic* a, int link)
{
	a->link_contact[link] = 1;
}

void artic_contact_jacobian(const artic* a, int link, sv6 j, double* jac)
{
	const artic_rows* rs = &a->rows;
	for (int s = 0; s < rs->k; ++s)
	{
		jac[s] = 0.0;
	}
	// A spatial impulse on the link is the joint impulse S^T j on every dof of its path to the root (and j
	// itself on a floating base): the generalised force of a force acting on the link.
	for (int i = link; i > 0; i = a->links[i].parent)
	{
		const artic_link* l = a->links + i;
		for (int d = 0; d < l->dof_count; ++d)
		{
			const int32_t slot = a->dof_slot[l->dof + d];
			if (slot >= 0)
			{
				jac[slot] = sv6_dot(a->dw[l->dof + d].s, j);
			}
		}
	}
	if (rs->k > rs->kd)
	{
		base_slots_set(rs, j, jac);
	}
}

void artic_contact_response(const artic* a, const double* jac, double* wj)
{
	const artic_rows* rs = &a->rows;
	const int k = rs->k;
	for (int r = 0; r < k; ++r)
	{
		wj[r] = 0.0;
	}
	// W is symmetric: W J^T is the sum of J's columns weighted by its entries.
	for (int s = 0; s < k; ++s)
	{
		const double x = jac[s];
		if (x == 0.0)
		{
			continue;
		}
		const double* col = rs->w + s * k;
		for (int r = 0; r < k; ++r)
		{
			wj[r] += x * col[r];
		}
	}
}

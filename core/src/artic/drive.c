// Implicit PD drives, after the PhysX team's notes "Implicit Spring Joint Drives" (2024), "the notes"
// below, whose equation numbers this derivation follows. The notes carry typos, corrected here (each is
// derived below): the v_{i-1} term of (29) is tau (tau kp' + kd'); (32) means x' = 1 / (a' + 1); in
// (33)-(34) a, b and k_n / k_nu stand for a', b' and kp'; in (43) k_v is kp; (42)-(45) compute a, b
// and x with rho in place of tau, and TGS's driveImpulseMultiplier is 1.
//
// A drive on a dof with response r (= r_ii, artic/response.c: the dof's speed change per unit impulse,
// articulated inertia, armature and implicit damping included) applies over a window of length h the
// impulse lambda = h (kp (x_T - x_end) + kd (v_T - v_end)), with the window's end position and speed.
//
// PGS (window = the whole solve, h = tau; the notes' eq. 6-24). The iterations keep lambda_{i-1}, the drive
// impulse applied so far, and v_{i-1}, the dof's speed now (which already contains r lambda_{i-1} and
// everything the other rows did). The end speed is v_i = v_{i-1} + r dlambda and the end position
// x_i = x_0 + h v_i (eq. 7-8). Substituting into lambda_{i-1} + dlambda = h (kp (x_T - x_i) + kd (v_T - v_i))
// (eq. 11) and solving for dlambda:
//   dlambda = x (b + h kp (x_T - x_0) - a v_{i-1} - lambda_{i-1}),   a = h (h kp + kd),  b = h kd v_T,
//   x = 1 / (a r + 1)                                                   (eq. 12-16)
//   lambda_i = x b + x h kp (x_T - x_0) - x a v_{i-1} + (1 - x) lambda_{i-1}   (eq. 18-19)
// whose coefficients are eq. 20-22:
//   drive_bias    = x b + x h kp (x_T - x_0)     [N*s]   (driveTargetVelPlusInitialBias)
//   drive_vel     = -x a                         [kg]    (driveVelMultiplier)
//   drive_impulse = 1 - x                        [-]     (driveImpulseMultiplier)
// For one isolated drive the first iteration already gives the exact implicit solution: lambda_{i-1}
// enters both through v_{i-1} = v_free + r lambda_{i-1} and directly, and the two cancel
// (x (a r + 1) = 1), which also makes the result independent of the warm start. PGS velocity iterations
// continue with the same x_0 (the notes: "a direct continuation of position iterations").
//
// Acceleration drives (eq. 25-39): the spring produces an acceleration, converted to a force by r^-1:
// lambda = h r^-1 (kp' (x_T - x) + kd' (v_T - v)). This is the force drive with kp = kp' / r and
// kd = kd' / r; then a r = a' (with a' = h (h kp' + kd')), x' = 1 / (a' + 1) as erratum (32) says, and
// every coefficient is eq. 35-39 with the erratum's a', b' and kp' read for a, b and k_n / k_nu. The
// code scales the gains and uses the force-drive formulas.
//
// TGS (the notes' eq. 40-45, corrected: kp for k_v in (43); a, b and x with rho in place of tau). Each of
// the n position iterations is a window of length rho = tau / n that advances the positions. Window s
// targets the interpolated position x_subT = x_T - (tau - s rho) v_T (eq. 41) from the position
// x_0 + dx_{s-1} it starts at (dx: the displacement accumulated in the earlier windows), so
//   x_s = x_0 + dx_{s-1} + rho v_s                                       (eq. 42 with rho)
//   lambda_s = rho (kp (x_subT - x_s) + kd (v_T - v_s))                   (eq. 43)
// and with a, b, x computed with rho:
//   lambda_s = x (b + rho kp (x_T - (tau - s rho) v_T - x_0) - rho kp dx_{s-1} - a v) + (1 - x) l
// where l is the drive impulse already applied in this window: its share of the hold (artic/solve.c),
// which came with the free-motion kick. PhysX's drive note computes each window's impulse from l = 0 and
// adds the windows up (its driveImpulseMultiplier = 1 across windows); here the windows are added up too
// (artic_row.total), and for an isolated drive the (1 - x) l term is exactly what makes the result the
// l = 0 one (v already contains r l, and x (a r + 1) = 1 cancels it): every window starts from zero.
// The coefficients of eq. 45:
//   drive_pos_coef    = x rho kp        multiplies dx_{s-1}              (driveBiasCoefficient)
//   drive_target_pos  = x rho kp v_T    multiplies the time left tau - s rho (driveTargetPosBias;
//                                       the notes' '+' in (45) needs the minus sign of (44))
// TGS velocity iterations freeze the drive: no impulse (the notes: "TGS velocity iteration").
//
// The impulse of one window is clamped to |lambda| <= max_force * (window length), so the effort the
// drive applied over the step, sum(lambda) / tau, never exceeds max_force.
//
// Speed (max_velocity, the actuator's speed, which a URDF's <limit velocity> gives): the drive never
// pushes its dof faster than max_velocity. With the window's end speed v + r (lambda - l), a push in +
// is bounded by lambda <= l + (max_velocity - v) / r, and when that bound is below 0 the drive pushes
// not at all (it does not pull either: a dof driven faster by something else is braked by the drive's
// own spring and damping, which act with lambda < 0). Likewise in -. The dof itself is not capped.
//
// Several drives on one articulation, solved together. Each drive's update above is exact for that
// drive alone; the drives are coupled through the responses W (a torque on the shoulder moves the
// elbow), and for stiff drives the coupling dominates: Gauss-Seidel sweeps of the single-drive update
// then converge slowly (a 7-link arm with kp = 1e6 N*m/rad at h = 1/60 s needs about 30 sweeps), and a
// step left unconverged is partly explicit and can diverge. So the drive rows of an articulation are
// solved as one block, the way the maximal solver solves a joint's lock rows (constraint/row.h). With the
// impulse changes d (one per drive), each drive's implicit condition with the end speeds v + W d reads
//   acc_i + d_i = C_i - a_i (v_i + sum_j W_ij d_j),   C_i = b + h kp (x_subT - x_0 - dx)
// or, divided by a_i (a_i > 0; drives with a = 0 exert nothing),
//   (A^-1 + W) d = A^-1 (C - acc) - v.
// A^-1 + W is symmetric positive definite, factored once per solve (Cholesky). Its diagonal is
// 1/a_i + r_i = 1/(x_i a_i), and the single-drive increment d1_i = lambda_i - acc_i (the formula above)
// equals x_i (C_i - a_i v_i - acc_i), so the right-hand side is diag(A^-1 + W) d1: each sweep computes
// the notes' single-drive increments, scales them by the diagonal and solves. For one drive this is the
// notes' update exactly; for many it is the point all the single-drive sweeps converge to. When a
// solution would exceed a drive's max_force, the sweep falls back to the single-drive updates with
// clamping for that sweep. When every dof of the articulation is driven and nothing else acts, the same
// block is solved without W by one articulated-body pass of M + A per window (artic/solve.c, "the drive
// path").
#include "artic/artic.h"

#include <math.h>

void artic_drive_prepare(artic_row* ar, const sn_drive* drive, double response, double x0, double hw)
{
	double kp = drive->stiffness, kd = drive->damping;
	if (drive->type == SN_DRIVE_ACCELERATION)
	{
		kp /= response;
		kd /= response;
	}
	double a = hw * (hw * kp + kd);
	double b = hw * kd * drive->target_velocity;
	double x = 1.0 / (a * response + 1.0);
	ar->drive_bias = x * b + x * hw * kp * (drive->target_position - x0);
	ar->drive_vel = -x * a;
	ar->drive_impulse = 1.0 - x;
	ar->drive_pos_coef = x * hw * kp;
	ar->drive_target_pos = x * hw * kp * drive->target_velocity;
	ar->drive_diag = a > 0.0 ? 1.0 / a + response : 0.0;
	ar->drive_speed = drive->max_velocity;
}

double artic_drive_speed_clamp(const artic_row* ar, double v, double lambda)
{
	// The end speed after the window's impulse lambda is v + r (lambda - acc) (r = K, the row's response).
	// Pushing in +: lambda <= acc + (max - v) / r, but a bound below 0 would make the drive pull, so it
	// stops at 0 (no push). Likewise in -. Braking (lambda against the motion) is never bounded here.
	const double vmax = ar->drive_speed;
	if (lambda > 0.0)
	{
		double hi = ar->acc + (vmax - v) / ar->k;
		return lambda < hi ? lambda : (hi > 0.0 ? hi : 0.0);
	}
	if (lambda < 0.0)
	{
		double lo = ar->acc + (-vmax - v) / ar->k;
		return lambda > lo ? lambda : (lo < 0.0 ? lo : 0.0);
	}
	return lambda;
}

double artic_drive_solve(const artic_row* ar, double v, double dx, double time_left)
{
	return ar->drive_bias + ar->drive_vel * v - ar->drive_pos_coef * dx - ar->drive_target_pos * time_left +
		ar->drive_impulse * ar->acc;
}

bool artic_drive_block_prepare(artic_rows* rs)
{
	int m = 0;
	for (int i = 0; i < rs->count; ++i)
	{
		const artic_row* ar = rs->rows + i;
		if (ar->kind == ARTIC_ROW_DRIVE && ar->drive_diag > 0.0)
		{
			rs->block_rows[m++] = i;
		}
	}
	rs->block_count = 0;
	if (m < 2)
	{
		return false;
	}
	// Lower Cholesky factor of A^-1 + W, by columns (l[j * m + i] = L_ij), so that the solves below read it
	// in memory order.
	double* l = rs->block_l;
	for (int i = 0; i < m; ++i)
	{
		const artic_row* ri = rs->rows + rs->block_rows[i];
		for (int j = 0; j <= i; ++j)
		{
			const artic_row* rj = rs->rows + rs->block_rows[j];
			double s = i == j ? ri->drive_diag : rs->w[rj->slot * rs->k + ri->slot];
			for (int t = 0; t < j; ++t)
			{
				s -= l[t * m + i] * l[t * m + j];
			}
			if (i == j)
			{
				if (!(s > 1e-12 * ri->drive_diag))
				{
					return false;
				}
				l[i * m + i] = sqrt(s);
				rs->block_inv[i] = 1.0 / l[i * m + i];
			}
			else
			{
				l[j * m + i] = s * rs->block_inv[j];
			}
		}
	}
	// The rows' impulses can be applied together when they all move the same span of slots.
	const artic_row* first = rs->rows + rs->block_rows[0];
	rs->block_span = true;
	for (int i = 1; i < m; ++i)
	{
		const artic_row* ar = rs->rows + rs->block_rows[i];
		rs->block_span = rs->block_span && ar->lo == first->lo && ar->hi == first->hi;
	}
	for (int i = 0; i < m; ++i)
	{
		rs->block_col[i] = rs->rows[rs->block_rows[i]].slot * rs->k;
	}
	rs->block_count = m;
	return true;
}

void artic_drive_block_solve(artic_rows* rs)
{
	const int m = rs->block_count;
	const double* l = rs->block_l; // by columns
	const double* inv = rs->block_inv;
	double* x = rs->block_x;
	// Forward, column by column: each x_i loses L_it x_t in the order t = 0, 1, ..., i - 1, exactly as a
	// row-by-row substitution subtracts them.
	for (int t = 0; t < m; ++t)
	{
		const double xt = x[t] * inv[t];
		x[t] = xt;
		artic_axpy_sub(x, xt, l + t * m, t + 1, m);
	}
	// Backward, row by row: row i of L^T is column i of L.
	for (int i = m - 1; i >= 0; --i)
	{
		const double* col = l + i * m;
		double s = x[i];
		int t = i + 1;
		for (; t + 2 <= m; t += 2)
		{
			s -= col[t] * x[t];
			s -= col[t + 1] * x[t + 1];
		}
		if (t < m)
		{
			s -= col[t] * x[t];
		}
		x[i] = s * inv[i];
	}
}

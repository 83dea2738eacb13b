// Softness of constraint rows: the one place where every form of softness becomes solver coefficients.
// Every solver (PGS, TGS, XPBD, DIRECT) reads rows through these functions, so the same numbers mean the
// same physics everywhere.
//
// The mapping (C the row's position error, Cdot = J v its rate, K = J M^-1 J^T its inverse effective
// mass, h the (sub)step):
//   canonical (k, b)          force = -k C - b Cdot; k in N/m or N*m/rad, b in N*s/m or N*m*s/rad
//   frequency (f, zeta)       k = m_eff w^2, b = 2 m_eff zeta w, w = 2 pi f, m_eff = 1/K
//   compliance (c, d)         Faure's eq. 3/12: force = -(C + d Cdot)/c, so k = 1/c, b = d/c, and back
//                             c = 1/k, d = b/k. c = 0 is a hard row (rigid); k = 0 < b is a pure damper
//                             (c = infinity), which the (k, b) form keeps finite.
//   XPBD alpha (Mueller)      alpha = c = 1/k, alpha~ = alpha/h^2 in lambda <- -C/(w1 + w2 + alpha~);
//                             the damping b acts in XPBD's velocity pass (see solver/xpbd.c).
// Static deflection: under a constant load F a soft row settles where k C = -F, C = -F c, whatever the
// solver, the time step or the implicit factors (each scheme below has that fixed point).
//
// Sources: Faure's SOFA compliant plugin (2012) for the compliance form and DIRECT; PhysX's implicit
// drive notes ("Implicit Spring Joint Drives", 2024) for the implicit spring in sequential impulses;
// Mueller et al. 2020 (XPBD) for alpha.
//
// PGS and TGS (implicit Euler: the drive notes' eq. 9-10, Faure's eq. 12 with alpha = beta = 1):
//   The row applies over a step h the impulse P = -h (k C_{n+1} + b Cdot_{n+1}) with
//   C_{n+1} = C + h Cdot_{n+1}:
//     P = -h k C - h (h k + b) Cdot_{n+1}
//   so Cdot_{n+1} + (k / (h k + b)) C + P / (h (h k + b)) = 0.
//   With gamma = 1 / (h (h k + b)) = c / (h (h + d)), one sequential impulse step from the current Cdot
//   and accumulated impulse P solves
//     dP = -(Cdot + bias_rate C - vel_scale v_target + gamma P) / (K + gamma)
//   with bias_rate = h k gamma = 1/(h + d) and vel_scale = h b gamma = d/(h + d). This is the drive notes' (12)
//   divided by a: x = 1/(a r + 1) with a = h (h k + b) = 1/gamma, r = K.
//   A rigid row is the limit k -> inf: gamma -> 0, bias_rate -> 1/h, corrected instead by erp/h.
//
// DIRECT (Faure's eq. 13-14 with the world's alpha and beta, per row l = alpha (h beta + d)):
//   J dv + (c/l) lambda = -(C + (d + alpha h) Cdot)/l, lambda the step's average force. With the
//   impulse P = h lambda and v_{n+1} = v_n + dv this is, multiplied through by k (finite for k = 0):
//     J v_{n+1} + D P = t,   a = alpha (h beta k + b),  D = 1/(h a),
//     t = -(k/a) C + ((alpha h k (beta - 1) + b (alpha - 1)) / a) Cdot_n
//   For alpha = beta = 1 it is the PGS/TGS row above exactly.
#ifndef SINEW_SOFT_H
#define SINEW_SOFT_H

#include "sinew/types.h"

typedef struct soft_coefficients
{
	double eff_mass;      // 1 / (K + gamma), or 1/K for rigid rows
	double impulse_scale; // gamma / (K + gamma), 0 for rigid rows
	double bias_rate;     // multiplies C; erp / h for rigid rows with bias
	double vel_scale;     // multiplies the target velocity; 1 for rigid rows
} soft_coefficients;

// A DIRECT row: J v_{n+1} + compliance P = phi_coef C + phidot_coef Cdot_n (P the step's impulse).
typedef struct soft_direct
{
	double compliance;  // D = 1 / (h a), (m/s)/(N*s)
	double phi_coef;    // 1/s
	double phidot_coef; // dimensionless
} soft_direct;

// A softness that makes a hard row: rigid, or compliance 0 (Faure: "hard constraints are compliance 0").
static inline bool soft_is_hard(sn_soft soft)
{
	return soft.kind == SN_SOFT_RIGID || (soft.kind == SN_SOFT_COMPLIANCE && soft.compliance == 0.0);
}

// Validate a softness: known kind, finite, non-negative. Returns SN_ERR_OK or the error.
sn_error soft_check(sn_soft soft);

// Canonical stiffness k (force per unit C) and damping b (force per unit Cdot) of a soft row with
// inverse effective mass K. Rigid softness (and compliance 0) returns false.
bool soft_spring_constants(sn_soft soft, double inv_eff_mass, double* stiffness, double* damping);

// Faure's compliance c = 1/k and damping time d = b/k (INFINITY when k = 0). False for rigid rows.
bool soft_compliance_of(sn_soft soft, double inv_eff_mass, double* compliance, double* damping_time);

// PGS/TGS coefficients for one (sub)step of length h. For a rigid row, bias_rate = rigid_bias_rate
// (erp/h or 0). Returns false if the row exerts nothing (soft with k = b = 0, or K = 0).
bool soft_coefficients_for(sn_soft soft, double inv_eff_mass, double h, double rigid_bias_rate, soft_coefficients* out);

// XPBD (Mueller et al. 2020): alpha~ = c / h^2 for the position pass (INFINITY when k = 0: no position term) and
// the velocity pass's damping compliance 1 / (h b) (INFINITY when b = 0: no damping). False for rigid.
bool soft_xpbd_for(sn_soft soft, double inv_eff_mass, double h, double* alpha_tilde, double* damping_compliance);

// DIRECT (Faure's compliant rows) coefficients for a step h with implicit factors alpha and beta. False for rigid rows
// and for soft rows that exert nothing (k = b = 0).
bool soft_direct_for(sn_soft soft, double inv_eff_mass, double h, double alpha, double beta, soft_direct* out);

#endif

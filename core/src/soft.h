// Softness of constraint rows: the one place where (stiffness, damping) and (frequency, damping ratio)
// become solver coefficients. Every solver reads rows through these functions.
//
// Derivation (implicit spring-damper on a row with position error C and velocity Cdot = J v):
//   The row applies over a step h the impulse P = -h (k C_{n+1} + c Cdot_{n+1}) with C_{n+1} = C + h Cdot_{n+1}
//   (implicit Euler, seed 002 eq. 9-10, and seed 004 eq. 12 with k = 1/compliance):
//     P = -h k C - h (h k + c) Cdot_{n+1}
//   so Cdot_{n+1} + (k / (h k + c)) C + P / (h (h k + c)) = 0.
//   With gamma = 1 / (h (h k + c)) and the row's inverse effective mass K = J M^-1 J^T, one sequential
//   impulse step from the current Cdot and accumulated impulse P solves
//     dP = -(Cdot + bias_rate C - vel_scale v_target + gamma P) / (K + gamma)
//   with bias_rate = h k gamma and vel_scale = h c gamma (a velocity target v_T enters as c (v_T - Cdot)).
//   This is seed 002's (12) divided by a: x = 1/(a r + 1) with a = h (h k + c) = 1/gamma, r = K.
//   A rigid row is the limit k -> inf: gamma -> 0, bias_rate -> 1/h, corrected instead by erp/h.
//   Frequency f and damping ratio zeta set k = m_eff w^2, c = 2 m_eff zeta w with w = 2 pi f, m_eff = 1/K.
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

// Validate a softness: known kind, finite, non-negative. Returns SN_ERR_OK or the error.
sn_error soft_check(sn_soft soft);

// Stiffness (force per unit C) and damping (force per unit Cdot) of a soft row with inverse effective
// mass K. Rigid softness returns false.
bool soft_spring_constants(sn_soft soft, double inv_eff_mass, double* stiffness, double* damping);

// Coefficients for one (sub)step of length h. For a rigid row, bias_rate = rigid_bias_rate (erp/h or 0).
// Returns false if the row exerts nothing (soft with k = c = 0, or K = 0).
bool soft_coefficients_for(sn_soft soft, double inv_eff_mass, double h, double rigid_bias_rate,
						   soft_coefficients* out);

#endif

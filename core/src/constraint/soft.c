// Softness: validation and the one mapping between its forms and each solver's coefficients (derived in
// soft.h).
#include "constraint/soft.h"

#include <math.h>

static sn_error check_pair(double a, double b)
{
	if (!isfinite(a) || !isfinite(b))
	{
		return SN_ERR_NOT_FINITE;
	}
	return (a < 0.0 || b < 0.0) ? SN_ERR_NEGATIVE_VALUE : SN_ERR_OK;
}

sn_error soft_check(sn_soft soft)
{
	switch (soft.kind)
	{
		case SN_SOFT_RIGID:
			return SN_ERR_OK;
		case SN_SOFT_STIFFNESS:
			return check_pair(soft.stiffness, soft.damping);
		case SN_SOFT_FREQUENCY:
			return check_pair(soft.frequency, soft.damping_ratio);
		case SN_SOFT_COMPLIANCE:
			return check_pair(soft.compliance, soft.damping_time);
	}
	return SN_ERR_INVALID_ARGUMENT;
}

bool soft_spring_constants(sn_soft soft, double inv_eff_mass, double* stiffness, double* damping)
{
	switch (soft.kind)
	{
		case SN_SOFT_STIFFNESS:
			*stiffness = soft.stiffness;
			*damping = soft.damping;
			return true;
		case SN_SOFT_FREQUENCY:
		{
			double m_eff = inv_eff_mass > 0.0 ? 1.0 / inv_eff_mass : 0.0;
			double omega = 2.0 * SN_PI * soft.frequency;
			*stiffness = m_eff * omega * omega;
			*damping = 2.0 * m_eff * soft.damping_ratio * omega;
			return true;
		}
		case SN_SOFT_COMPLIANCE:
			if (soft.compliance > 0.0)
			{
				*stiffness = 1.0 / soft.compliance;
				*damping = soft.damping_time / soft.compliance;
				return true;
			}
			break; // c = 0: a hard row
		case SN_SOFT_RIGID:
			break;
	}
	*stiffness = 0.0;
	*damping = 0.0;
	return false;
}

bool soft_compliance_of(sn_soft soft, double inv_eff_mass, double* compliance, double* damping_time)
{
	if (soft.kind == SN_SOFT_COMPLIANCE && soft.compliance > 0.0)
	{
		*compliance = soft.compliance;
		*damping_time = soft.damping_time;
		return true;
	}
	double k, b;
	if (!soft_spring_constants(soft, inv_eff_mass, &k, &b))
	{
		*compliance = 0.0;
		*damping_time = 0.0;
		return false;
	}
	*compliance = k > 0.0 ? 1.0 / k : INFINITY;
	*damping_time = k > 0.0 ? b / k : (b > 0.0 ? INFINITY : 0.0);
	return true;
}

bool soft_coefficients_for(sn_soft soft, double inv_eff_mass, double h, double rigid_bias_rate, soft_coefficients* out)
{
	if (!(inv_eff_mass > 0.0))
	{
		return false;
	}
	double k, c;
	if (!soft_spring_constants(soft, inv_eff_mass, &k, &c))
	{
		out->eff_mass = 1.0 / inv_eff_mass;
		out->impulse_scale = 0.0;
		out->bias_rate = rigid_bias_rate;
		out->vel_scale = 1.0;
		return true;
	}
	double a = h * (h * k + c);
	if (!(a > 0.0))
	{
		return false;
	}
	double gamma = 1.0 / a;
	out->eff_mass = 1.0 / (inv_eff_mass + gamma);
	out->impulse_scale = gamma * out->eff_mass;
	out->bias_rate = h * k * gamma;
	out->vel_scale = h * c * gamma;
	return true;
}

bool soft_xpbd_for(sn_soft soft, double inv_eff_mass, double h, double* alpha_tilde, double* damping_compliance)
{
	double k, b;
	if (!soft_spring_constants(soft, inv_eff_mass, &k, &b))
	{
		*alpha_tilde = 0.0;
		*damping_compliance = INFINITY;
		return false;
	}
	*alpha_tilde = k > 0.0 ? 1.0 / (k * h * h) : INFINITY;
	*damping_compliance = b > 0.0 ? 1.0 / (h * b) : INFINITY;
	return true;
}

bool soft_direct_for(sn_soft soft, double inv_eff_mass, double h, double alpha, double beta, soft_direct* out)
{
	double k, b;
	if (!soft_spring_constants(soft, inv_eff_mass, &k, &b))
	{
		return false;
	}
	double a = alpha * (h * beta * k + b);
	if (!(a > 0.0))
	{
		return false;
	}
	out->compliance = 1.0 / (h * a);
	out->phi_coef = -k / a;
	out->phidot_coef = (alpha * h * k * (beta - 1.0) + b * (alpha - 1.0)) / a;
	return true;
}

#include "soft.h"

#include <math.h>

sn_error soft_check(sn_soft soft)
{
	switch (soft.kind)
	{
		case SN_SOFT_RIGID:
			return SN_ERR_OK;
		case SN_SOFT_STIFFNESS:
			if (!isfinite(soft.stiffness) || !isfinite(soft.damping))
			{
				return SN_ERR_NOT_FINITE;
			}
			return (soft.stiffness < 0.0 || soft.damping < 0.0) ? SN_ERR_NEGATIVE_VALUE : SN_ERR_OK;
		case SN_SOFT_FREQUENCY:
			if (!isfinite(soft.frequency) || !isfinite(soft.damping_ratio))
			{
				return SN_ERR_NOT_FINITE;
			}
			return (soft.frequency < 0.0 || soft.damping_ratio < 0.0) ? SN_ERR_NEGATIVE_VALUE : SN_ERR_OK;
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
		case SN_SOFT_RIGID:
			break;
	}
	*stiffness = 0.0;
	*damping = 0.0;
	return false;
}

bool soft_coefficients_for(sn_soft soft, double inv_eff_mass, double h, double rigid_bias_rate,
						   soft_coefficients* out)
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

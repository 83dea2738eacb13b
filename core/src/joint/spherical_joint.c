// Spherical (ball) joint: the anchors coincide (three linear locks); rotation is free inside an elliptic
// swing cone and a twist range.
//
// Twist limit: rows on theta (axis RX) as in joint/joint_axes.c.
// Swing cone: with the swing vector s = phi (cos psi, sin psi) of joint.h and half-angles a (about y)
// and b (about z), the ellipse norm rho = sqrt((s_y/a)^2 + (s_z/b)^2) is 1 on the cone. The row is
//   C = L (1 - rho) >= 0,   L = phi / rho = 1 / sqrt(cos^2 psi / a^2 + sin^2 psi / b^2)
// which is L - phi, the angular distance to the cone along the current swing direction. Holding L fixed
// over the step, the Jacobian is
//   J = -L (d rho/d s_y  J_sy + d rho/d s_z  J_sz) = -(L^2 cos psi / a^2  J_sy + L^2 sin psi / b^2  J_sz)
// the outward normal of the ellipse, bounded everywhere (for a = b it is -J_phi, the swing axis).
#include "joint/joint.h"
#include "island.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

sn_spherical_joint_def sn_default_spherical_joint_def(void)
{
	sn_spherical_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.swing.y_angle = 0.5 * SN_PI;
	def.swing.z_angle = 0.5 * SN_PI;
	def.swing.soft = sn_soft_rigid();
	def.twist.lower = -0.5 * SN_PI;
	def.twist.upper = 0.5 * SN_PI;
	def.twist.soft = sn_soft_rigid();
	return def;
}

static sn_error check_cone(sn_world* world, const char* what, sn_cone_limit cone)
{
	if (!cone.enabled)
	{
		return SN_ERR_OK;
	}
	if (!isfinite(cone.y_angle) || !isfinite(cone.z_angle))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: cone angles must be finite", what);
	}
	if (!(cone.y_angle > 0.0 && cone.y_angle < SN_PI && cone.z_angle > 0.0 && cone.z_angle < SN_PI))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: cone half-angles must be in (0, pi) rad, got %g and %g",
						  what, cone.y_angle, cone.z_angle);
	}
	return joint_check_soft(world, what, cone.soft);
}

sn_error sn_create_spherical_joint(sn_world* world, const sn_spherical_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create spherical joint: def is NULL");
	}
	sn_error err = check_cone(world, "create spherical joint: swing", def->swing);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	joint config;
	memset(&config, 0, sizeof(config));
	sn_motor no_motor = { false, 0.0, INFINITY };
	sn_spring no_spring = { false, 0.0, sn_soft_rigid(), INFINITY };
	config.axes[SN_AXIS_RX] = joint_moving_axis(def->twist, no_motor, no_spring);
	config.axes[SN_AXIS_RY].mode = SN_AXIS_FREE;
	config.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
	config.movable = 1u << SN_AXIS_RX;
	config.cone = def->swing;
	return joint_create(world, SN_JOINT_SPHERICAL, &def->base, &config, out_id);
}

sn_error sn_joint_set_cone_limit(sn_world* world, sn_joint_id id, sn_cone_limit cone)
{
	joint* j = joint_get(world, id);
	if (j == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "set cone limit: invalid joint id");
	}
	if (j->type != SN_JOINT_SPHERICAL)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE, "set cone limit: joint is %s, not spherical",
						  sn_joint_type_name(j->type));
	}
	sn_error err = check_cone(world, "set cone limit", cone);
	if (err == SN_ERR_OK)
	{
		j->cone = cone;
	}
	if (err == SN_ERR_OK)
	{
		island_wake_body(world, j->body_a);
		island_wake_body(world, j->body_b);
	}
	return err;
}

static void cone_row(row_builder* b, const joint* j, const joint_frame* f)
{
	const sn_cone_limit* cone = &j->cone;
	double a = cone->y_angle, bb = cone->z_angle;
	double cps = cos(f->psi), sps = sin(f->psi);
	double rho = f->phi * sqrt(cps * cps / (a * a) + sps * sps / (bb * bb));
	if (!(rho > 1e-9))
	{
		return; // at the cone's axis: far from the boundary
	}
	double ell = f->phi / rho;
	double ky = ell * ell * cps / (a * a), kz = ell * ell * sps / (bb * bb);
	sn_vec3 g = sn_add(sn_scale(ky, f->jac[1]), sn_scale(kz, f->jac[2]));
	// C = L (1 - rho): its gradient is -g; ang_a acts on wA with the opposite sign of ang_b.
	builder_emit(b, SLOT_CONE, sn_v3(0, 0, 0), g, sn_neg(g), ell * (1.0 - rho), cone->soft, 0.0, INFINITY, 0.0,
				 ROW_UNILATERAL);
}

int spherical_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b)
{
	int start = b->count;
	if (j->cone.enabled)
	{
		cone_row(b, j, f);
	}
	axes_joint_build_rows(j, f, b);
	return b->count - start;
}

// Articulation state through the public API: joint positions and velocities, link poses and
// velocities, the base, applied forces, incoming joint forces, drives and limits. Every setter validates
// all of its input first and changes nothing on failure.
#include "artic/artic.h"

#include "island.h"

#include "math/mathx.h"
#include "world.h"

#include <math.h>
#include <string.h>

// ---- joint state --------------------------------------------------------------------------------------

static sn_error get_for_set(sn_world* world, sn_articulation_id id, const char* what, artic** out)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	*out = artic_get(world, id);
	if (*out == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "%s: invalid articulation id", what);
	}
	return SN_ERR_OK;
}

static sn_error check_dof(sn_world* world, const artic* a, const char* what, int dof)
{
	if (dof < 0 || dof >= a->dof_count)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: dof %d is out of range (0..%d)", what, dof,
						  a->dof_count - 1);
	}
	return SN_ERR_OK;
}

static sn_error check_values(sn_world* world, const char* what, const double* values, int count)
{
	for (int i = 0; i < count; ++i)
	{
		if (!isfinite(values[i]))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "%s: value %d is not finite", what, i);
		}
	}
	return SN_ERR_OK;
}

// After joint positions changed: the spherical quaternions from their rotation vectors, then poses.
// The state was set from outside a step: the articulation wakes, and its next solve predicts the
// midpoint speeds afresh, as a new articulation's does (artic/dynamics.c).
static void state_set(sn_world* world, artic* a, sn_articulation_id id)
{
	a->free_history = ARTIC_FREE_NONE;
	island_wake_artic(world, id.index1 - 1);
}

static void positions_changed(artic* a, int first_link, int last_link)
{
	for (int i = first_link; i <= last_link; ++i)
	{
		const artic_link* l = a->links + i;
		if (l->type == SN_LINK_JOINT_SPHERICAL)
		{
			a->sph[i] = quat_exp(sn_v3(a->q[l->dof], a->q[l->dof + 1], a->q[l->dof + 2]));
		}
	}
	artic_sync_spherical(a);
	artic_update_kinematics(a);
}

sn_error sn_articulation_get_joint_positions(const sn_world* world, sn_articulation_id id, double* q, int count)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if ((q == NULL && a->dof_count > 0) || count < a->dof_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (a->dof_count > 0)
	{
		memcpy(q, a->q, (size_t)a->dof_count * sizeof(double));
	}
	return SN_ERR_OK;
}

sn_error sn_articulation_get_joint_velocities(const sn_world* world, sn_articulation_id id, double* qd, int count)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if ((qd == NULL && a->dof_count > 0) || count < a->dof_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (a->dof_count > 0)
	{
		memcpy(qd, a->qd, (size_t)a->dof_count * sizeof(double));
	}
	return SN_ERR_OK;
}

sn_error sn_articulation_set_joint_positions(sn_world* world, sn_articulation_id id, const double* q, int count)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set joint positions", &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (count != a->dof_count || (q == NULL && count > 0))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set joint positions: need %d values, got %d", a->dof_count,
						  count);
	}
	err = check_values(world, "set joint positions", q, count);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (count > 0)
	{
		memcpy(a->q, q, (size_t)count * sizeof(double));
	}
	positions_changed(a, 0, a->link_count - 1);
	world->contacts.proxies_stale = true; // the links' shapes moved
	state_set(world, a, id);
	return SN_ERR_OK;
}

sn_error sn_articulation_set_joint_velocities(sn_world* world, sn_articulation_id id, const double* qd, int count)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set joint velocities", &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (count != a->dof_count || (qd == NULL && count > 0))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set joint velocities: need %d values, got %d", a->dof_count,
						  count);
	}
	err = check_values(world, "set joint velocities", qd, count);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (count > 0)
	{
		memcpy(a->qd, qd, (size_t)count * sizeof(double));
	}
	state_set(world, a, id);
	return SN_ERR_OK;
}

sn_error sn_articulation_set_joint_position(sn_world* world, sn_articulation_id id, int dof, double q)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set joint position", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "set joint position", dof);
	}
	if (err == SN_ERR_OK)
	{
		err = check_values(world, "set joint position", &q, 1);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	a->q[dof] = q;
	int link = a->dof_link[dof];
	positions_changed(a, link, link);
	world->contacts.proxies_stale = true;
	state_set(world, a, id);
	return SN_ERR_OK;
}

sn_error sn_articulation_set_joint_velocity(sn_world* world, sn_articulation_id id, int dof, double qd)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set joint velocity", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "set joint velocity", dof);
	}
	if (err == SN_ERR_OK)
	{
		err = check_values(world, "set joint velocity", &qd, 1);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	a->qd[dof] = qd;
	state_set(world, a, id);
	return SN_ERR_OK;
}

double sn_articulation_get_joint_position(const sn_world* world, sn_articulation_id id, int dof)
{
	const artic* a = artic_get(world, id);
	return (a != NULL && dof >= 0 && dof < a->dof_count) ? a->q[dof] : 0.0;
}

double sn_articulation_get_joint_velocity(const sn_world* world, sn_articulation_id id, int dof)
{
	const artic* a = artic_get(world, id);
	return (a != NULL && dof >= 0 && dof < a->dof_count) ? a->qd[dof] : 0.0;
}

// ---- link kinematics ----------------------------------------------------------------------------------

sn_transform sn_articulation_get_link_pose(const sn_world* world, sn_articulation_id id, int link)
{
	const artic* a = artic_get(world, id);
	if (a == NULL || link < 0 || link >= a->link_count)
	{
		return sn_transform_identity();
	}
	return artic_link_pose(a, link);
}

sn_error sn_articulation_get_link_velocity(const sn_world* world, sn_articulation_id id, int link,
										   sn_vec3* linear_velocity, sn_vec3* angular_velocity)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if (link < 0 || link >= a->link_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_vec3 lin, ang;
	artic_point_velocity(a, link, artic_link_pose(a, link).p, &lin, &ang);
	if (linear_velocity != NULL)
	{
		*linear_velocity = lin;
	}
	if (angular_velocity != NULL)
	{
		*angular_velocity = ang;
	}
	return SN_ERR_OK;
}

double sn_articulation_get_kinetic_energy(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return 0.0;
	}
	double e = 0.0;
	for (int i = a->fixed_base ? 1 : 0; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		const artic_kin* k = a->kin + i;
		sn_vec3 com = sn_add(k->anchor, sn_mat33_mul_v(k->joint, l->com_j));
		sn_vec3 v, w;
		artic_point_velocity(a, i, com, &v, &w);
		sn_vec3 wj = sn_mat33_mul_tv(k->joint, w);
		e += 0.5 * l->mass * sn_dot(v, v) + 0.5 * sn_dot(wj, sym33_mul(&l->inertia_j, wj));
	}
	return e;
}

sn_error sn_articulation_set_base_pose(sn_world* world, sn_articulation_id id, sn_transform pose)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set base pose", &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (!sn_vec3_is_finite(pose.p) || !sn_quat_is_finite(pose.q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set base pose: pose must be finite");
	}
	if (sn_quat_length(pose.q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "set base pose: rotation quaternion has zero length");
	}
	a->base_pose.p = pose.p;
	a->base_pose.q = sn_quat_normalize(pose.q);
	artic_update_kinematics(a);
	world->contacts.proxies_stale = true; // the links' shapes moved
	state_set(world, a, id);
	return SN_ERR_OK;
}

sn_error sn_articulation_set_base_velocity(sn_world* world, sn_articulation_id id, sn_vec3 linear_velocity,
										   sn_vec3 angular_velocity)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set base velocity", &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (a->fixed_base)
	{
		return world_fail(world, SN_ERR_WRONG_TYPE, "set base velocity: the articulation has a fixed base");
	}
	if (!sn_vec3_is_finite(linear_velocity) || !sn_vec3_is_finite(angular_velocity))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set base velocity: velocities must be finite");
	}
	a->base_v = linear_velocity;
	a->base_w = angular_velocity;
	state_set(world, a, id);
	return SN_ERR_OK;
}

// ---- applied forces -----------------------------------------------------------------------------------

static sn_error check_link_index(sn_world* world, const artic* a, const char* what, int link)
{
	if (link < 0 || link >= a->link_count)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: link %d is out of range (0..%d)", what, link,
						  a->link_count - 1);
	}
	return SN_ERR_OK;
}

sn_error sn_articulation_apply_link_force(sn_world* world, sn_articulation_id id, int link, sn_vec3 force,
										  sn_vec3 world_point)
{
	artic* a;
	sn_error err = get_for_set(world, id, "apply link force", &a);
	if (err == SN_ERR_OK)
	{
		err = check_link_index(world, a, "apply link force", link);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (!sn_vec3_is_finite(force) || !sn_vec3_is_finite(world_point))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "apply link force: force and point must be finite");
	}
	sv6* f = a->link_force + link;
	f->v = sn_add(f->v, force);
	f->w = sn_add(f->w, sn_cross(world_point, force));
	a->has_inputs = true;
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_articulation_apply_link_torque(sn_world* world, sn_articulation_id id, int link, sn_vec3 torque)
{
	artic* a;
	sn_error err = get_for_set(world, id, "apply link torque", &a);
	if (err == SN_ERR_OK)
	{
		err = check_link_index(world, a, "apply link torque", link);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (!sn_vec3_is_finite(torque))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "apply link torque: torque must be finite");
	}
	a->link_force[link].w = sn_add(a->link_force[link].w, torque);
	a->has_inputs = true;
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_articulation_apply_joint_force(sn_world* world, sn_articulation_id id, int dof, double force)
{
	artic* a;
	sn_error err = get_for_set(world, id, "apply joint force", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "apply joint force", dof);
	}
	if (err == SN_ERR_OK)
	{
		err = check_values(world, "apply joint force", &force, 1);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	a->joint_force[dof] += force;
	a->has_inputs = true;
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_articulation_get_link_incoming_force(const sn_world* world, sn_articulation_id id, int link, sn_vec3* force,
												 sn_vec3* torque)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if (link < 0 || link >= a->link_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	double inv_dt = a->step_dt > 0.0 ? 1.0 / a->step_dt : 0.0;
	const sv6 incoming = artic_incoming(a)[link];
	if (force != NULL)
	{
		*force = sn_scale(inv_dt, incoming.v);
	}
	if (torque != NULL)
	{
		*torque = sn_scale(inv_dt, incoming.w);
	}
	return SN_ERR_OK;
}

// ---- drives and limits --------------------------------------------------------------------------------

sn_error sn_articulation_set_drive(sn_world* world, sn_articulation_id id, int dof, const sn_drive* drive)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set drive", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "set drive", dof);
	}
	if (err == SN_ERR_OK && drive == NULL)
	{
		err = world_fail(world, SN_ERR_INVALID_ARGUMENT, "set drive: drive must not be NULL");
	}
	if (err == SN_ERR_OK)
	{
		err = artic_check_drive(world, "set drive", drive);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_drive old = a->drives[dof];
	a->drives[dof] = *drive;
	err = artic_reserve_rows(world, a, NULL);
	if (err != SN_ERR_OK)
	{
		a->drives[dof] = old;
	}
	if (err == SN_ERR_OK)
	{
		island_wake_artic(world, id.index1 - 1);
	}
	return err;
}

sn_drive sn_articulation_get_drive(const sn_world* world, sn_articulation_id id, int dof)
{
	const artic* a = artic_get(world, id);
	return (a != NULL && dof >= 0 && dof < a->dof_count) ? a->drives[dof] : sn_default_drive();
}

sn_error sn_articulation_set_drive_target(sn_world* world, sn_articulation_id id, int dof, double position,
										  double velocity)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set drive target", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "set drive target", dof);
	}
	if (err == SN_ERR_OK && (!isfinite(position) || !isfinite(velocity)))
	{
		err = world_fail(world, SN_ERR_NOT_FINITE, "set drive target: targets must be finite");
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	a->drives[dof].target_position = position;
	a->drives[dof].target_velocity = velocity;
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_articulation_check_drive_targets(sn_world* world, sn_articulation_id id, const int* dofs,
											 const double* positions, const double* velocities, int count)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set drive targets", &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (count < 0 || (count > 0 && (dofs == NULL || positions == NULL)))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "set drive targets: count must be >= 0 and dofs and positions given");
	}
	for (int i = 0; i < count; ++i)
	{
		if (dofs[i] < 0 || dofs[i] >= a->dof_count)
		{
			return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set drive targets: entry %d: dof %d is out of range", i,
							  dofs[i]);
		}
		if (!isfinite(positions[i]) || (velocities != NULL && !isfinite(velocities[i])))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "set drive targets: entry %d is not finite", i);
		}
	}
	return SN_ERR_OK;
}

sn_error sn_articulation_set_drive_targets(sn_world* world, sn_articulation_id id, const int* dofs,
										   const double* positions, const double* velocities, int count)
{
	sn_error err = sn_articulation_check_drive_targets(world, id, dofs, positions, velocities, count);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	artic* a = artic_get(world, id);
	for (int i = 0; i < count; ++i)
	{
		a->drives[dofs[i]].target_position = positions[i];
		if (velocities != NULL)
		{
			a->drives[dofs[i]].target_velocity = velocities[i];
		}
	}
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

sn_error sn_articulation_get_drive_efforts(const sn_world* world, sn_articulation_id id, double* efforts, int count)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if ((efforts == NULL && a->dof_count > 0) || count < a->dof_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	double inv_dt = a->step_dt > 0.0 ? 1.0 / a->step_dt : 0.0;
	for (int d = 0; d < a->dof_count; ++d)
	{
		efforts[d] = a->effort[d] * inv_dt;
	}
	return SN_ERR_OK;
}

sn_error sn_articulation_set_limit(sn_world* world, sn_articulation_id id, int dof, sn_limit limit)
{
	artic* a;
	sn_error err = get_for_set(world, id, "set limit", &a);
	if (err == SN_ERR_OK)
	{
		err = check_dof(world, a, "set limit", dof);
	}
	if (err == SN_ERR_OK)
	{
		err = artic_check_limit(world, "set limit", limit);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	sn_limit old = a->limits[dof];
	a->limits[dof] = limit;
	err = artic_reserve_rows(world, a, NULL);
	if (err != SN_ERR_OK)
	{
		a->limits[dof] = old;
	}
	else
	{
		a->limit_count += (int)limit.enabled - (int)old.enabled;
	}
	if (err == SN_ERR_OK)
	{
		island_wake_artic(world, id.index1 - 1);
	}
	return err;
}

sn_limit sn_articulation_get_limit(const sn_world* world, sn_articulation_id id, int dof)
{
	const artic* a = artic_get(world, id);
	if (a != NULL && dof >= 0 && dof < a->dof_count)
	{
		return a->limits[dof];
	}
	sn_limit none = { false, 0.0, 0.0, sn_soft_rigid() };
	return none;
}

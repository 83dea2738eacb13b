// Wire <-> core conversions.
#include "convert.h"

#include <math.h>
#include <stdio.h>

sn_vec3 cv_vec3(bool has, const sinew_v1_Vec3* v, sn_vec3 fallback)
{
	return has ? sn_v3(v->x, v->y, v->z) : fallback;
}

sn_quat cv_quat(bool has, const sinew_v1_Quat* q)
{
	sn_quat out = { 0.0, 0.0, 0.0, 1.0 };
	if (has)
	{
		out.x = q->x;
		out.y = q->y;
		out.z = q->z;
		out.w = q->w;
	}
	return out;
}

sn_transform cv_transform(bool has, const sinew_v1_Transform* t)
{
	sn_transform out = sn_transform_identity();
	if (has)
	{
		out.p = cv_vec3(t->has_position, &t->position, sn_v3(0, 0, 0));
		out.q = cv_quat(t->has_rotation, &t->rotation);
	}
	return out;
}

sn_soft cv_soft(bool has, const sinew_v1_Soft* s, sn_soft fallback)
{
	if (!has)
	{
		return fallback;
	}
	sn_soft out;
	switch (s->kind)
	{
		case sinew_v1_SoftKind_SOFT_RIGID:
			out.kind = SN_SOFT_RIGID;
			break;
		case sinew_v1_SoftKind_SOFT_STIFFNESS:
			out.kind = SN_SOFT_STIFFNESS;
			break;
		case sinew_v1_SoftKind_SOFT_FREQUENCY:
			out.kind = SN_SOFT_FREQUENCY;
			break;
		default:
			out.kind = (sn_soft_kind)(100 + (int)s->kind); // rejected by the core
			break;
	}
	out.stiffness = s->stiffness;
	out.damping = s->damping;
	out.frequency = s->frequency_hz;
	out.damping_ratio = s->damping_ratio;
	return out;
}

sn_limit cv_limit(bool has, const sinew_v1_Limit* l, sn_limit fallback)
{
	if (!has)
	{
		return fallback;
	}
	sn_limit out;
	out.enabled = l->enabled;
	out.lower = l->lower;
	out.upper = l->upper;
	out.soft = cv_soft(l->has_soft, &l->soft, sn_soft_rigid());
	return out;
}

sn_motor cv_motor(bool has, const sinew_v1_Motor* m, sn_motor fallback)
{
	if (!has)
	{
		return fallback;
	}
	sn_motor out;
	out.enabled = m->enabled;
	out.speed = m->speed;
	out.max_force = m->has_max_force ? m->max_force : INFINITY;
	return out;
}

sn_spring cv_spring(bool has, const sinew_v1_Spring* s, sn_spring fallback)
{
	if (!has)
	{
		return fallback;
	}
	sn_spring out;
	out.enabled = s->enabled;
	out.target = s->target;
	out.soft = cv_soft(s->has_soft, &s->soft, sn_soft_rigid());
	out.max_force = s->has_max_force ? s->max_force : INFINITY;
	return out;
}

sn_mat33 cv_inertia(bool has, const sinew_v1_Inertia* i, sn_mat33 fallback)
{
	if (!has)
	{
		return fallback;
	}
	sn_mat33 m;
	m.cx = sn_v3(i->xx, i->xy, i->xz);
	m.cy = sn_v3(i->xy, i->yy, i->yz);
	m.cz = sn_v3(i->xz, i->yz, i->zz);
	return m;
}

bool cv_world_settings(const sinew_v1_WorldSettings* s, sn_world_def* def, char* detail, size_t capacity)
{
	if (s->has_gravity)
	{
		def->gravity = sn_v3(s->gravity.x, s->gravity.y, s->gravity.z);
	}
	if (s->has_time_step)
	{
		def->time_step = s->time_step;
	}
	switch (s->solver)
	{
		case sinew_v1_Solver_SOLVER_DEFAULT:
			break;
		case sinew_v1_Solver_SOLVER_PGS:
			def->solver = SN_SOLVER_PGS;
			break;
		case sinew_v1_Solver_SOLVER_TGS:
			def->solver = SN_SOLVER_TGS;
			break;
		case sinew_v1_Solver_SOLVER_XPBD:
			def->solver = SN_SOLVER_XPBD;
			break;
		case sinew_v1_Solver_SOLVER_DIRECT:
			def->solver = SN_SOLVER_DIRECT;
			break;
		default:
			snprintf(detail, capacity, "unknown solver %d", (int)s->solver);
			return false;
	}
	if (s->has_position_iterations)
	{
		def->position_iterations = s->position_iterations;
	}
	if (s->has_velocity_iterations)
	{
		def->velocity_iterations = s->velocity_iterations;
	}
	if (s->has_substeps)
	{
		def->substeps = s->substeps;
	}
	if (s->has_erp)
	{
		def->erp = s->erp;
	}
	if (s->has_divergence_speed)
	{
		def->divergence_speed = s->divergence_speed;
	}
	if (s->has_warm_start)
	{
		def->warm_start = s->warm_start;
	}
	if (s->has_implicit_alpha)
	{
		def->implicit_alpha = s->implicit_alpha;
	}
	if (s->has_implicit_beta)
	{
		def->implicit_beta = s->implicit_beta;
	}
	if (s->has_contact_slop)
	{
		def->contact.slop = s->contact_slop;
	}
	if (s->has_max_push_speed)
	{
		def->contact.max_push_speed = s->max_push_speed;
	}
	if (s->has_restitution_threshold)
	{
		def->contact.restitution_threshold = s->restitution_threshold;
	}
	static const sn_mix_rule mixes[] = { SN_MIX_GEOMETRIC_MEAN, SN_MIX_GEOMETRIC_MEAN, SN_MIX_MIN, SN_MIX_MAX,
										 SN_MIX_AVERAGE,        SN_MIX_MULTIPLY };
	const int mix_count = (int)(sizeof(mixes) / sizeof(mixes[0]));
	if ((int)s->friction_mix < 0 || (int)s->friction_mix >= mix_count || (int)s->restitution_mix < 0 ||
		(int)s->restitution_mix >= mix_count)
	{
		snprintf(detail, capacity, "unknown mix rule (friction %d, restitution %d)", (int)s->friction_mix,
				 (int)s->restitution_mix);
		return false;
	}
	if (s->friction_mix != sinew_v1_MixRule_MIX_DEFAULT)
	{
		def->contact.friction_mix = mixes[s->friction_mix];
	}
	if (s->restitution_mix != sinew_v1_MixRule_MIX_DEFAULT)
	{
		def->contact.restitution_mix = mixes[s->restitution_mix];
	}
	if ((int)s->sleep < (int)sinew_v1_SleepMode_SLEEP_DEFAULT || (int)s->sleep > (int)sinew_v1_SleepMode_SLEEP_OFF)
	{
		snprintf(detail, capacity, "unknown sleep mode %d", (int)s->sleep);
		return false;
	}
	if (s->has_sleep_linear_speed)
	{
		def->sleep.linear_speed = s->sleep_linear_speed;
	}
	if (s->has_sleep_angular_speed)
	{
		def->sleep.angular_speed = s->sleep_angular_speed;
	}
	if (s->has_time_to_sleep)
	{
		def->sleep.time_to_sleep = s->time_to_sleep;
	}
	return true;
}

sn_body_def cv_body_def(bool has, const sinew_v1_BodyDef* b)
{
	sn_body_def def = sn_default_body_def();
	if (!has)
	{
		return def;
	}
	switch (b->type)
	{
		case sinew_v1_BodyType_BODY_DYNAMIC:
			def.type = SN_BODY_DYNAMIC;
			break;
		case sinew_v1_BodyType_BODY_STATIC:
			def.type = SN_BODY_STATIC;
			break;
		case sinew_v1_BodyType_BODY_KINEMATIC:
			def.type = SN_BODY_KINEMATIC;
			break;
		default:
			def.type = (sn_body_type)(100 + (int)b->type); // rejected by the core
			break;
	}
	def.pose = cv_transform(b->has_pose, &b->pose);
	def.linear_velocity = cv_vec3(b->has_linear_velocity, &b->linear_velocity, def.linear_velocity);
	def.angular_velocity = cv_vec3(b->has_angular_velocity, &b->angular_velocity, def.angular_velocity);
	if (b->has_mass)
	{
		def.mass = b->mass;
	}
	def.inertia = cv_inertia(b->has_inertia, &b->inertia, def.inertia);
	def.center_of_mass = cv_vec3(b->has_center_of_mass, &b->center_of_mass, def.center_of_mass);
	def.linear_damping = b->linear_damping;
	def.angular_damping = b->angular_damping;
	if (b->has_gravity_scale)
	{
		def.gravity_scale = b->gravity_scale;
	}
	def.user_data = b->user_data;
	return def;
}

sn_joint_base cv_joint_base(bool has, const sinew_v1_JointBase* b)
{
	sn_joint_base base = sn_default_joint_base();
	if (!has)
	{
		return base;
	}
	base.body_a = sn_body_id_load(b->body_a);
	base.body_b = sn_body_id_load(b->body_b);
	base.frame_a = cv_transform(b->has_frame_a, &b->frame_a);
	base.frame_b = cv_transform(b->has_frame_b, &b->frame_b);
	base.lock_soft = cv_soft(b->has_lock_soft, &b->lock_soft, base.lock_soft);
	if (b->has_break_force)
	{
		base.break_force = b->break_force;
	}
	if (b->has_break_torque)
	{
		base.break_torque = b->break_torque;
	}
	if (b->has_enabled)
	{
		base.enabled = b->enabled;
	}
	base.user_data = b->user_data;
	return base;
}

void wv_vec3(sn_vec3 v, sinew_v1_Vec3* out)
{
	out->x = v.x;
	out->y = v.y;
	out->z = v.z;
}

void wv_quat(sn_quat q, sinew_v1_Quat* out)
{
	out->x = q.x;
	out->y = q.y;
	out->z = q.z;
	out->w = q.w;
}

void wv_transform(sn_transform t, sinew_v1_Transform* out)
{
	out->has_position = true;
	wv_vec3(t.p, &out->position);
	out->has_rotation = true;
	wv_quat(t.q, &out->rotation);
}

void wv_world_settings(const sn_world_def* def, sinew_v1_WorldSettings* out)
{
	out->has_gravity = true;
	wv_vec3(def->gravity, &out->gravity);
	out->has_time_step = true;
	out->time_step = def->time_step;
	static const sinew_v1_Solver solvers[] = { sinew_v1_Solver_SOLVER_PGS, sinew_v1_Solver_SOLVER_TGS,
											   sinew_v1_Solver_SOLVER_XPBD, sinew_v1_Solver_SOLVER_DIRECT };
	out->solver =
		(int)def->solver >= 0 && def->solver < SN_SOLVER_COUNT ? solvers[def->solver] : sinew_v1_Solver_SOLVER_DEFAULT;
	out->has_position_iterations = true;
	out->position_iterations = def->position_iterations;
	out->has_velocity_iterations = true;
	out->velocity_iterations = def->velocity_iterations;
	out->has_substeps = true;
	out->substeps = def->substeps;
	out->has_erp = true;
	out->erp = def->erp;
	out->has_divergence_speed = true;
	out->divergence_speed = def->divergence_speed;
	out->has_warm_start = true;
	out->warm_start = def->warm_start;
	out->has_implicit_alpha = true;
	out->implicit_alpha = def->implicit_alpha;
	out->has_implicit_beta = true;
	out->implicit_beta = def->implicit_beta;
	out->has_contact_slop = true;
	out->contact_slop = def->contact.slop;
	out->has_max_push_speed = true;
	out->max_push_speed = def->contact.max_push_speed;
	out->has_restitution_threshold = true;
	out->restitution_threshold = def->contact.restitution_threshold;
	static const sinew_v1_MixRule rules[] = { sinew_v1_MixRule_MIX_GEOMETRIC_MEAN, sinew_v1_MixRule_MIX_MIN,
											  sinew_v1_MixRule_MIX_MAX, sinew_v1_MixRule_MIX_AVERAGE,
											  sinew_v1_MixRule_MIX_MULTIPLY };
	out->friction_mix =
		(int)def->contact.friction_mix < 5 ? rules[def->contact.friction_mix] : sinew_v1_MixRule_MIX_DEFAULT;
	out->restitution_mix =
		(int)def->contact.restitution_mix < 5 ? rules[def->contact.restitution_mix] : sinew_v1_MixRule_MIX_DEFAULT;
	out->sleep = def->sleep.enabled ? sinew_v1_SleepMode_SLEEP_ON : sinew_v1_SleepMode_SLEEP_OFF;
	out->has_sleep_linear_speed = true;
	out->sleep_linear_speed = def->sleep.linear_speed;
	out->has_sleep_angular_speed = true;
	out->sleep_angular_speed = def->sleep.angular_speed;
	out->has_time_to_sleep = true;
	out->time_to_sleep = def->sleep.time_to_sleep;
}

bool cv_vec3_finite(bool has, const sinew_v1_Vec3* v)
{
	return !has || (isfinite(v->x) && isfinite(v->y) && isfinite(v->z));
}

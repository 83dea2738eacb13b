// State frame encoding by callbacks over the world's bodies, joints and articulations.
#include "frame.h"

#include "convert.h"
#include "shapes.h"
#include "wire.h"

#include "sinew/articulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t frame_include_mask(uint32_t include)
{
	include &= FRAME_INCLUDE_ALL;
	uint32_t events = include & (uint32_t)sinew_v1_Include_INCLUDE_CONTACT_EVENTS;
	uint32_t frame = include & ~(uint32_t)sinew_v1_Include_INCLUDE_CONTACT_EVENTS;
	return (frame == 0 ? (uint32_t)(sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_JOINT_POSITIONS)
					   : frame) |
		events;
}

// A manifold a client wants to see: one that touches, or that the solver pushed on (a speculative point
// that stopped a fast body).
static bool worth_sending(const sn_contact* c)
{
	if (c->touching)
	{
		return true;
	}
	for (int k = 0; k < c->point_count; ++k)
	{
		if (c->points[k].normal_impulse != 0.0 || c->points[k].tangent_impulse[0] != 0.0 ||
			c->points[k].tangent_impulse[1] != 0.0)
		{
			return true;
		}
	}
	return false;
}

// The manifolds worth sending, at most max of them (the rest counted).
static bool gather_contacts(frame_source* src, int max_contacts)
{
	int total = sn_world_get_contacts(src->world, NULL, 0);
	if (total <= 0)
	{
		return true;
	}
	sn_contact* all = malloc((size_t)total * sizeof(sn_contact));
	if (all == NULL)
	{
		return false;
	}
	total = sn_world_get_contacts(src->world, all, total);
	int kept = 0;
	for (int i = 0; i < total; ++i)
	{
		if (!worth_sending(all + i))
		{
			continue;
		}
		if (kept < max_contacts)
		{
			all[kept++] = all[i];
		}
		else
		{
			src->contacts_dropped += 1;
		}
	}
	src->contacts = all;
	src->contact_count = kept;
	return true;
}

bool frame_source_init(frame_source* src, const sn_world* world, uint32_t include, int max_contacts)
{
	memset(src, 0, sizeof(*src));
	src->world = world;
	src->include = frame_include_mask(include);
	src->body_count = sn_world_get_body_count(world);
	src->joint_count = sn_world_get_joint_count(world);
	src->bodies = malloc((size_t)(src->body_count > 0 ? src->body_count : 1) * sizeof(sn_body_id));
	src->joints = malloc((size_t)(src->joint_count > 0 ? src->joint_count : 1) * sizeof(sn_joint_id));
	if (src->bodies == NULL || src->joints == NULL)
	{
		frame_source_free(src);
		return false;
	}
	sn_world_get_bodies(world, src->bodies, src->body_count);
	sn_world_get_joints(world, src->joints, src->joint_count);
	src->articulation_count = sn_world_get_articulations(world, NULL, 0);
	if (src->articulation_count > 0)
	{
		src->articulations = malloc((size_t)src->articulation_count * sizeof(sn_articulation_id));
		src->scratch = malloc(sizeof(sinew_v1_ArticulationState));
		if (src->articulations == NULL || src->scratch == NULL)
		{
			frame_source_free(src);
			return false;
		}
		sn_world_get_articulations(world, src->articulations, src->articulation_count);
	}
	src->time_step = sn_world_get_def(world).time_step;
	if ((src->include & sinew_v1_Include_INCLUDE_CONTACTS) != 0 && !gather_contacts(src, max_contacts))
	{
		frame_source_free(src);
		return false;
	}
	return true;
}

void frame_source_free(frame_source* src)
{
	free(src->bodies);
	free(src->joints);
	free(src->articulations);
	free(src->scratch);
	free(src->contacts);
	src->contacts = NULL;
	src->bodies = NULL;
	src->joints = NULL;
	src->articulations = NULL;
	src->scratch = NULL;
}

static bool encode_bodies(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const frame_source* src = *arg;
	bool poses = (src->include & sinew_v1_Include_INCLUDE_POSES) != 0;
	bool velocities = (src->include & sinew_v1_Include_INCLUDE_VELOCITIES) != 0;
	if (!poses && !velocities)
	{
		return true;
	}
	for (int i = 0; i < src->body_count; ++i)
	{
		sn_body_id id = src->bodies[i];
		sinew_v1_BodyState b = sinew_v1_BodyState_init_zero;
		b.id = sn_body_id_store(id);
		if (poses)
		{
			sn_transform pose = sn_body_get_pose(src->world, id);
			b.has_position = true;
			wv_vec3(pose.p, &b.position);
			b.has_rotation = true;
			wv_quat(pose.q, &b.rotation);
		}
		if (velocities)
		{
			b.has_linear_velocity = true;
			wv_vec3(sn_body_get_linear_velocity(src->world, id), &b.linear_velocity);
			b.has_angular_velocity = true;
			wv_vec3(sn_body_get_angular_velocity(src->world, id), &b.angular_velocity);
		}
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_BodyState_fields, &b))
		{
			return false;
		}
	}
	return true;
}

// The moving axes of each joint type, in sn_axis order (six-axis joints report all six).
static int moving_axes(sn_joint_type type, sn_axis axes[SN_AXIS_COUNT])
{
	switch (type)
	{
		case SN_JOINT_HINGE:
			axes[0] = SN_AXIS_RX;
			return 1;
		case SN_JOINT_PRISMATIC:
		case SN_JOINT_DISTANCE:
			axes[0] = SN_AXIS_X;
			return 1;
		case SN_JOINT_CYLINDRICAL:
			axes[0] = SN_AXIS_X;
			axes[1] = SN_AXIS_RX;
			return 2;
		case SN_JOINT_SPHERICAL:
			axes[0] = SN_AXIS_RX;
			axes[1] = SN_AXIS_RY;
			axes[2] = SN_AXIS_RZ;
			return 3;
		case SN_JOINT_SIX_AXIS:
			for (int a = 0; a < SN_AXIS_COUNT; ++a)
			{
				axes[a] = (sn_axis)a;
			}
			return SN_AXIS_COUNT;
		default:
			return 0;
	}
}

static bool encode_joints(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const frame_source* src = *arg;
	bool positions = (src->include & sinew_v1_Include_INCLUDE_JOINT_POSITIONS) != 0;
	bool velocities = (src->include & sinew_v1_Include_INCLUDE_VELOCITIES) != 0;
	bool forces = (src->include & sinew_v1_Include_INCLUDE_JOINT_FORCES) != 0;
	if (!positions && !velocities && !forces)
	{
		return true;
	}
	for (int i = 0; i < src->joint_count; ++i)
	{
		sn_joint_id id = src->joints[i];
		sinew_v1_JointState j = sinew_v1_JointState_init_zero;
		j.id = sn_joint_id_store(id);
		sn_axis axes[SN_AXIS_COUNT];
		int n = moving_axes(sn_joint_get_type(src->world, id), axes);
		for (int a = 0; a < n; ++a)
		{
			if (positions)
			{
				j.position[j.position_count++] = sn_joint_get_coordinate(src->world, id, axes[a]);
			}
			if (velocities)
			{
				j.velocity[j.velocity_count++] = sn_joint_get_coordinate_speed(src->world, id, axes[a]);
			}
		}
		if (forces)
		{
			sn_vec3 f, t;
			sn_joint_get_reaction(src->world, id, &f, &t);
			j.has_force = true;
			wv_vec3(f, &j.force);
			j.has_torque = true;
			wv_vec3(t, &j.torque);
		}
		j.broken = sn_joint_is_broken(src->world, id);
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_JointState_fields, &j))
		{
			return false;
		}
	}
	return true;
}

static bool encode_articulations(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const frame_source* src = *arg;
	enum
	{
		MAX_DOFS = (int)(sizeof(src->scratch->position) / sizeof(src->scratch->position[0])),
		MAX_LINKS = (int)(sizeof(src->scratch->link_poses) / sizeof(src->scratch->link_poses[0]))
	};
	for (int i = 0; i < src->articulation_count; ++i)
	{
		sn_articulation_id id = src->articulations[i];
		sinew_v1_ArticulationState* a = src->scratch;
		*a = (sinew_v1_ArticulationState)sinew_v1_ArticulationState_init_zero;
		a->id = sn_articulation_id_store(id);
		int dofs = sn_articulation_get_dof_count(src->world, id);
		int links = sn_articulation_get_link_count(src->world, id);
		// The schema bounds one element; a larger articulation cannot be sent whole, so the frame fails
		// instead of being cut (the server refuses such articulations at creation).
		if (dofs > MAX_DOFS || links > MAX_LINKS)
		{
			return false;
		}
		if ((src->include & sinew_v1_Include_INCLUDE_JOINT_POSITIONS) != 0)
		{
			sn_articulation_get_joint_positions(src->world, id, a->position, dofs);
			a->position_count = (pb_size_t)dofs;
		}
		if ((src->include & sinew_v1_Include_INCLUDE_VELOCITIES) != 0)
		{
			sn_articulation_get_joint_velocities(src->world, id, a->velocity, dofs);
			a->velocity_count = (pb_size_t)dofs;
		}
		if ((src->include & sinew_v1_Include_INCLUDE_DRIVE_EFFORTS) != 0)
		{
			sn_articulation_get_drive_efforts(src->world, id, a->effort, dofs);
			a->effort_count = (pb_size_t)dofs;
		}
		if ((src->include & sinew_v1_Include_INCLUDE_DRIVE_TARGETS) != 0)
		{
			for (int d = 0; d < dofs; ++d)
			{
				sn_drive drive = sn_articulation_get_drive(src->world, id, d);
				a->target_position[d] = drive.enabled ? drive.target_position : 0.0;
			}
			a->target_position_count = (pb_size_t)dofs;
		}
		if ((src->include & sinew_v1_Include_INCLUDE_POSES) != 0)
		{
			for (int l = 0; l < links; ++l)
			{
				wv_transform(sn_articulation_get_link_pose(src->world, id, l), a->link_poses + l);
			}
			a->link_poses_count = (pb_size_t)links;
		}
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_ArticulationState_fields, a))
		{
			return false;
		}
	}
	return true;
}

static bool encode_contacts(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const frame_source* src = *arg;
	// Impulses over the last step (N*s) are the step's mean forces (N).
	double per_s = src->time_step > 0.0 ? 1.0 / src->time_step : 0.0;
	for (int i = 0; i < src->contact_count; ++i)
	{
		const sn_contact* c = src->contacts + i;
		sinew_v1_Contact out = sinew_v1_Contact_init_zero;
		out.has_a = true;
		shapes_side(src->world, c->shape_a, c->body_a, &out.a);
		out.has_b = true;
		shapes_side(src->world, c->shape_b, c->body_b, &out.b);
		out.has_normal = true;
		wv_vec3(c->normal, &out.normal);
		out.touching = c->touching;
		int n = c->point_count < 4 ? c->point_count : 4;
		for (int k = 0; k < n; ++k)
		{
			const sn_contact_point* p = c->points + k;
			sinew_v1_ContactPoint* q = out.points + k;
			q->has_position = true;
			wv_vec3(p->position, &q->position);
			q->separation = p->separation;
			q->normal_force = p->normal_impulse * per_s;
			q->friction_force =
				sqrt(p->tangent_impulse[0] * p->tangent_impulse[0] + p->tangent_impulse[1] * p->tangent_impulse[1]) *
				per_s;
			q->has_force = true;
			wv_vec3(p->force, &q->force);
		}
		out.points_count = (pb_size_t)n;
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_Contact_fields, &out))
		{
			return false;
		}
	}
	return true;
}

void frame_fill(sinew_v1_StateFrame* frame, frame_source* src, uint64_t world_id, uint64_t clock_ns)
{
	*frame = (sinew_v1_StateFrame)sinew_v1_StateFrame_init_zero;
	frame->world_id = world_id;
	frame->tick = sn_world_get_step_count(src->world);
	frame->time = sn_world_get_time(src->world);
	frame->diverged = sn_world_is_diverged(src->world);
	frame->server_clock_ns = clock_ns;
	frame->bodies.funcs.encode = encode_bodies;
	frame->bodies.arg = src;
	frame->joints.funcs.encode = encode_joints;
	frame->joints.arg = src;
	frame->articulations.funcs.encode = encode_articulations;
	frame->articulations.arg = src;
	if ((src->include & sinew_v1_Include_INCLUDE_CONTACTS) != 0)
	{
		frame->contacts.funcs.encode = encode_contacts;
		frame->contacts.arg = src;
		frame->contacts_dropped = (uint32_t)src->contacts_dropped;
	}
}

frame_buf* frame_encode(const sn_world* world, uint64_t world_id, uint32_t include, int max_contacts, uint64_t clock_ns)
{
	frame_source src;
	if (!frame_source_init(&src, world, include, max_contacts))
	{
		return NULL;
	}
	sinew_v1_StateFrame frame;
	frame_fill(&frame, &src, world_id, clock_ns);
	frame_buf* out = NULL;
	size_t size = 0;
	if (pb_get_encoded_size(&size, sinew_v1_StateFrame_fields, &frame))
	{
		out = frame_buf_new(size);
		if (out != NULL)
		{
			pb_ostream_t stream = pb_ostream_from_buffer(out->data, size);
			if (!pb_encode(&stream, sinew_v1_StateFrame_fields, &frame) || stream.bytes_written != size)
			{
				frame_buf_unref(out);
				out = NULL;
			}
			else
			{
				out->tick = frame.tick;
			}
		}
	}
	frame_source_free(&src);
	return out;
}

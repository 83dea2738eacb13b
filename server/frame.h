// State frames: the world's state in a StateFrame, with the parts a subscription's include mask asks
// for. Encoded with callbacks straight from the core's getters, so a frame carries every body, joint
// and articulation however many there are (bounded only by the world's limits). Thread-safe for a world
// that no other thread touches (workers encode the world they have just stepped).
#ifndef SINEW_SERVER_FRAME_H
#define SINEW_SERVER_FRAME_H

#include "outbox.h"
#include "sinew.pb.h"

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stdint.h>

// What one ArticulationState of a frame carries (sinew.options): articulations with more links or dofs
// are refused when they are created.
#define FRAME_MAX_ARTICULATION_LINKS 256
#define FRAME_MAX_ARTICULATION_DOFS 768

// Include bits with 0 meaning the default (poses and joint positions; also when only
// INCLUDE_CONTACT_EVENTS is set); unknown bits dropped.
uint32_t frame_include_mask(uint32_t include);
// The include bits a client may ask for (Subscribe; GetState takes them without INCLUDE_CONTACT_EVENTS).
#define FRAME_INCLUDE_ALL 255u

typedef struct frame_source
{
	const sn_world* world;
	uint32_t include;
	sn_body_id* bodies;
	int body_count;
	sn_joint_id* joints;
	int joint_count;
	sn_articulation_id* articulations;
	int articulation_count;
	sinew_v1_ArticulationState* scratch; // one articulation at a time
	sn_contact* contacts;                // INCLUDE_CONTACTS: the manifolds sent (touching or with a force)
	int contact_count;
	int contacts_dropped; // beyond max_contacts
	double time_step;     // s: impulses over it are forces
} frame_source;

// Gather the ids to encode, and at most max_contacts manifolds (allocates). False if memory ran out.
bool frame_source_init(frame_source* src, const sn_world* world, uint32_t include, int max_contacts);
void frame_source_free(frame_source* src);

// Fill a StateFrame's fields and callbacks from src (which must outlive the encoding). The
// per-subscription fields (subscription_id, dropped) stay zero.
void frame_fill(sinew_v1_StateFrame* frame, frame_source* src, uint64_t world_id, uint64_t clock_ns);

// Encode the frame into a new shared buffer (NULL if memory ran out).
frame_buf* frame_encode(const sn_world* world, uint64_t world_id, uint32_t include, int max_contacts,
						uint64_t clock_ns);

#endif

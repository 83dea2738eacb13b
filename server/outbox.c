// The bounded outbox: a reliable FIFO and one replaceable frame slot per subscription.
#include "outbox.h"

#include "wire.h"

#include <stdlib.h>
#include <string.h>

frame_buf* frame_buf_new(size_t size)
{
	frame_buf* frame = malloc(sizeof(frame_buf) + size + 1);
	if (frame != NULL)
	{
		frame->refs = 1;
		frame->tick = 0;
		frame->size = size;
	}
	return frame;
}

void frame_buf_ref(frame_buf* frame)
{
	frame->refs += 1;
}

void frame_buf_unref(frame_buf* frame)
{
	if (frame != NULL && --frame->refs == 0)
	{
		free(frame);
	}
}

outbox_msg* outbox_msg_adopt(uint8_t* buffer, size_t size)
{
	outbox_msg* msg = (outbox_msg*)(void*)buffer;
	msg->next = NULL;
	msg->queued_ns = 0;
	msg->size = size;
	return msg;
}

void outbox_msg_free(outbox_msg* msg)
{
	free(msg);
}

void outbox_init(outbox* box)
{
	memset(box, 0, sizeof(*box));
}

void outbox_clear(outbox* box)
{
	for (outbox_msg* m = box->head; m != NULL;)
	{
		outbox_msg* next = m->next;
		outbox_msg_free(m);
		m = next;
	}
	for (int i = 0; i < box->slot_count; ++i)
	{
		frame_buf_unref(box->slots[i].frame);
	}
	free(box->slots);
	uint64_t dropped = box->frames_dropped, sent = box->frames_sent;
	outbox_init(box);
	box->frames_dropped = dropped;
	box->frames_sent = sent;
}

void outbox_push(outbox* box, outbox_msg* msg)
{
	msg->next = NULL;
	if (box->tail != NULL)
	{
		box->tail->next = msg;
	}
	else
	{
		box->head = msg;
	}
	box->tail = msg;
	box->reliable_bytes += msg->size;
	box->reliable_count += 1;
}

static int find_slot(const outbox* box, uint64_t subscription_id)
{
	for (int i = 0; i < box->slot_count; ++i)
	{
		if (box->slots[i].subscription_id == subscription_id)
		{
			return i;
		}
	}
	return -1;
}

bool outbox_add_slot(outbox* box, uint64_t subscription_id)
{
	if (box->slot_count == box->slot_capacity)
	{
		int capacity = box->slot_capacity > 0 ? 2 * box->slot_capacity : 4;
		outbox_slot* slots = realloc(box->slots, (size_t)capacity * sizeof(outbox_slot));
		if (slots == NULL)
		{
			return false;
		}
		box->slots = slots;
		box->slot_capacity = capacity;
	}
	outbox_slot* slot = box->slots + box->slot_count++;
	slot->subscription_id = subscription_id;
	slot->frame = NULL;
	slot->dropped = 0;
	return true;
}

void outbox_remove_slot(outbox* box, uint64_t subscription_id)
{
	int i = find_slot(box, subscription_id);
	if (i < 0)
	{
		return;
	}
	frame_buf_unref(box->slots[i].frame);
	box->slots[i] = box->slots[--box->slot_count];
	if (box->next_slot >= box->slot_count)
	{
		box->next_slot = 0;
	}
}

bool outbox_offer_frame(outbox* box, uint64_t subscription_id, frame_buf* frame)
{
	int i = find_slot(box, subscription_id);
	if (i < 0)
	{
		return false;
	}
	outbox_slot* slot = box->slots + i;
	bool replaced = slot->frame != NULL;
	if (replaced)
	{
		frame_buf_unref(slot->frame);
		slot->dropped += 1;
		box->frames_dropped += 1;
	}
	frame_buf_ref(frame);
	slot->frame = frame;
	return replaced;
}

bool outbox_pop(outbox* box, outbox_item* item)
{
	item->head_size = 0;
	item->body = NULL;
	item->body_size = 0;
	item->msg = NULL;
	item->frame = NULL;
	if (box->head != NULL)
	{
		outbox_msg* m = box->head;
		box->head = m->next;
		if (box->head == NULL)
		{
			box->tail = NULL;
		}
		box->reliable_bytes -= m->size;
		box->reliable_count -= 1;
		item->msg = m;
		item->body = m->data;
		item->body_size = m->size;
		return true;
	}
	for (int k = 0; k < box->slot_count; ++k)
	{
		int i = (box->next_slot + k) % box->slot_count;
		outbox_slot* slot = box->slots + i;
		if (slot->frame == NULL)
		{
			continue;
		}
		box->next_slot = (i + 1) % box->slot_count;
		// ServerMessage { state (field 2) = StateFrame { subscription_id (1), dropped (6), ...shared } }
		uint8_t fields[24];
		size_t n = 0;
		fields[n++] = 0x08; // field 1, varint
		n += wire_varint_put(fields + n, slot->subscription_id);
		if (slot->dropped > 0)
		{
			fields[n++] = 0x30; // field 6, varint
			n += wire_varint_put(fields + n, slot->dropped);
		}
		size_t h = 0;
		item->head[h++] = 0x12; // field 2, length-delimited
		h += wire_varint_put(item->head + h, (uint64_t)(n + slot->frame->size));
		memcpy(item->head + h, fields, n);
		item->head_size = h + n;
		item->frame = slot->frame; // the slot's reference moves to the item
		item->body = slot->frame->data;
		item->body_size = slot->frame->size;
		slot->frame = NULL;
		slot->dropped = 0;
		box->frames_sent += 1;
		return true;
	}
	return false;
}

void outbox_item_release(outbox_item* item)
{
	if (item->msg != NULL)
	{
		outbox_msg_free(item->msg);
	}
	frame_buf_unref(item->frame);
	item->msg = NULL;
	item->frame = NULL;
}

bool outbox_is_empty(const outbox* box)
{
	if (box->head != NULL)
	{
		return false;
	}
	for (int i = 0; i < box->slot_count; ++i)
	{
		if (box->slots[i].frame != NULL)
		{
			return false;
		}
	}
	return true;
}

uint64_t outbox_oldest_age_ns(const outbox* box, uint64_t now_ns)
{
	if (box->head == NULL || now_ns < box->head->queued_ns)
	{
		return 0;
	}
	return now_ns - box->head->queued_ns;
}

size_t outbox_bytes(const outbox* box)
{
	size_t bytes = box->reliable_bytes;
	for (int i = 0; i < box->slot_count; ++i)
	{
		if (box->slots[i].frame != NULL)
		{
			bytes += box->slots[i].frame->size;
		}
	}
	return bytes;
}

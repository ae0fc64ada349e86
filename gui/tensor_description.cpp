#include "gui/tensor_description.hpp"

#include "gui/text.hpp"
#include "simulator/trace/explain.hpp"

#include <QObject>
#include <QStringList>

namespace gallocsim::gui {

namespace {

QString flags_text(const TraceTensor& tensor) {
    QStringList names;
    for (const auto& [flag, name] : kFlagNames) {
        if (tensor.has_flag(flag)) {
            names << qstr(name);
        }
    }
    return names.join(", ");
}

} // namespace

QString lifetime_text(const Timeline& timeline, const MemorySpan& span) {
    const std::size_t first = timeline.step_in_plan(span.first_step);
    const std::size_t last = timeline.step_in_plan(span.last_step);
    QString steps = first == last ? QObject::tr("node step %1").arg(first) : QObject::tr("node steps %1 to %2").arg(first).arg(last);
    if (timeline.plan_count() > 1) {
        steps += QObject::tr(" of plan %1").arg(span.plan + 1);
    }
    const QString given = QObject::tr("%1 (given memory by event %2, ").arg(steps).arg(span.first);
    switch (span.how_it_ends) {
    case SpanEnd::kept: return given + QObject::tr("kept to the end)");
    case SpanEnd::freed: return given + QObject::tr("freed by event %1)").arg(span.end);
    case SpanEnd::handed_over: return given + QObject::tr("handed over in place by event %1)").arg(span.end);
    case SpanEnd::replanned: return given + QObject::tr("held until the next plan started at event %1)").arg(span.end + 1);
    }
    return steps;
}

QString describe_tensor(const DescribedPlan& plan, TensorId id) {
    const TraceTensor& tensor = plan.cursor.trace().tensor(id);
    const TensorState& now = plan.cursor.state().tensor(id);
    QStringList lines;
    lines << "<b>" + qstr(tensor.name).toHtmlEscaped() + "</b>";
    // A captured graph's names were made unique; the program's own name is worth seeing.
    if (const auto original = plan.file.original_names.find(id); original != plan.file.original_names.end()) {
        lines << QObject::tr("named \"%1\" by the program").arg(qstr(original->second).toHtmlEscaped());
    }
    lines << QObject::tr("%1 · %2 · %3 · %4")
                 .arg(qstr(op_name(tensor.op)), qstr(type_name(tensor.type)), qstr(shape_text(tensor)), qstr(byte_count(tensor.bytes)));
    if (const QString flags = flags_text(tensor); !flags.isEmpty()) {
        lines << QObject::tr("flags: %1").arg(flags);
    }
    if (const auto split = plan.splits.split_of(tensor)) {
        const SchedulerSplit& of = plan.splits.splits[static_cast<std::size_t>(*split)];
        const QString backend = of.buffer_id ? qstr(plan.cursor.trace().buffer(*of.buffer_id).type_name).toHtmlEscaped() : QObject::tr("nothing computed");
        // Numbered from #0, as ggml's scheduler prints its splits.
        lines << (is_split_input(tensor) ? QObject::tr("scheduler split #%1 of #0 to #%2, on %3: one of its inputs")
                                         : QObject::tr("scheduler split #%1 of #0 to #%2, on %3"))
                     .arg(*split)
                     .arg(plan.splits.splits.size() - 1)
                     .arg(backend);
    }
    if (tensor.external) {
        lines << QObject::tr("external data: its memory is not the allocator's");
    } else if (tensor.is_view()) {
        lines << QObject::tr("view of %1 at +%2").arg(qstr(plan.cursor.trace().tensor(tensor.view_src).name).toHtmlEscaped()).arg(tensor.view_offs);
    }
    const MemorySpan* span = plan.timeline.span_at(id, plan.cursor.position());
    if (span != nullptr) {
        const TraceBuffer& buffer = plan.cursor.trace().buffer(span->buffer_id);
        lines << QObject::tr("memory: buffer %1 (%2), chunk %3, offset %4, %5")
                     .arg(span->buffer_id)
                     .arg(qstr(buffer.type_name).toHtmlEscaped())
                     .arg(span->address.chunk)
                     .arg(span->address.offset)
                     .arg(qstr(byte_count(span->size)));
        lines << QObject::tr("lifetime: %1").arg(lifetime_text(plan.timeline, *span));
    }
    static const char* const life_names[] = {QT_TR_NOOP("no memory of its own yet"), QT_TR_NOOP("live"),
                                             QT_TR_NOOP("handed over in place"), QT_TR_NOOP("freed")};
    if (!tensor.external && !tensor.is_view()) {
        lines << QObject::tr("now: %1").arg(QObject::tr(life_names[static_cast<int>(now.life)]));
    }
    if (const auto placing = plan.timeline.placing_event(id)) {
        lines << QObject::tr("why there (event %1): %2").arg(*placing + 1).arg(qstr(plan.explanations.at(*placing)).toHtmlEscaped());
    }
    return lines.join("<br>");
}

} // namespace gallocsim::gui

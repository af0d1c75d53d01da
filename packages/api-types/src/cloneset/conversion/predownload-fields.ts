// The image pre-download knobs: annotations on a v1alpha1 CloneSet, fields of
// updateStrategy.rollingUpdate.inPlaceUpdateStrategy in v1beta1. A value moves into its field
// only when v1beta1 can hold it exactly (the field's type and bounds, written back to the same
// text); anything else stays an annotation, so nothing is lost and nothing is reinterpreted.
import { KRUISE_ANNOTATIONS } from '../../keys/kruise.ts';
import { MAX_INT32 } from '../schema.ts';

export interface PreDownloadKnob {
  /** Annotation key on v1alpha1. */
  annotation: string;
  /** Field of v1beta1's inPlaceUpdateStrategy. */
  field: string;
  /** Percentages allowed (int-or-string). */
  percent: boolean;
}

export const PREDOWNLOAD_KNOBS: readonly PreDownloadKnob[] = [
  { annotation: KRUISE_ANNOTATIONS.imagePreDownloadParallelism, field: 'imagePreDownloadParallelism', percent: true },
  { annotation: KRUISE_ANNOTATIONS.imagePreDownloadTimeoutSeconds, field: 'imagePreDownloadTimeoutSeconds', percent: false },
  { annotation: KRUISE_ANNOTATIONS.imagePreDownloadMinUpdatedReadyPods, field: 'imagePreDownloadMinUpdatedReadyPods', percent: false },
];

export const PREDOWNLOAD_ANNOTATIONS: readonly string[] = PREDOWNLOAD_KNOBS.map((k) => k.annotation);
export const PREDOWNLOAD_FIELDS: readonly string[] = PREDOWNLOAD_KNOBS.map((k) => k.field);

const NON_NEGATIVE_INT = /^(0|[1-9][0-9]*)$/;
const NON_NEGATIVE_PERCENT = /^(0|[1-9][0-9]*)%$/;

/** The field value an annotation becomes, or undefined when v1beta1 cannot hold it as written. */
export function fieldValue(knob: PreDownloadKnob, text: string): number | string | undefined {
  if (NON_NEGATIVE_INT.test(text)) {
    const n = Number(text);
    return n <= MAX_INT32 ? n : undefined;
  }
  return knob.percent && NON_NEGATIVE_PERCENT.test(text) ? text : undefined;
}

/** The annotation text a field value becomes, or undefined when it is neither a number nor a string. */
export function annotationText(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value : undefined;
}

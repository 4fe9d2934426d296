/** What each form of LoRA module's update is, after "ΔW = scale ·": the views that show or form one say it alike. */
export const UPDATE_FORMS = { pair: 'B·A', lokr: 'W1 ⊗ W2', loha: '(A1·B1) ⊙ (A2·B2)', locon: 'B·mid·A' } as const;

export type UpdateForm = keyof typeof UPDATE_FORMS;
